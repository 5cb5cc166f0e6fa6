"""Crossovers · Cost Frontier."""

import streamlit as st

import ui

st.set_page_config(page_title="Crossovers · Cost Frontier", layout="wide")
ui.crossover_page()
