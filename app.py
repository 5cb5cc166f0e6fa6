"""Cost Frontier: what does a million tokens cost on this hardware, at this speed?"""

import streamlit as st

import ui

st.set_page_config(page_title="Cost Frontier", layout="wide")
ui.overview_page()
