"""TCO rates · Cost Frontier."""

import streamlit as st

import ui

st.set_page_config(page_title="TCO rates · Cost Frontier", layout="wide")
ui.rates_page()
