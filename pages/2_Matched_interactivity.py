"""Cost at matched interactivity · Cost Frontier."""

import streamlit as st

import ui

st.set_page_config(page_title="Cost at matched interactivity · Cost Frontier", layout="wide")
ui.cost_page()
