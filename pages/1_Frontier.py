"""Frontier · Cost Frontier."""

import streamlit as st

import ui

st.set_page_config(page_title="Frontier · Cost Frontier", layout="wide")
ui.frontier_page()
