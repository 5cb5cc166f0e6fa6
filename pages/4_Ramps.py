"""Load ramps and capacity · Cost Frontier."""

import streamlit as st

import ui

st.set_page_config(page_title="Load ramps and capacity · Cost Frontier", layout="wide")
ui.ramps_page()
