"""Data · Cost Frontier."""

import streamlit as st

import ui

st.set_page_config(page_title="Data · Cost Frontier", layout="wide")
ui.data_page()
