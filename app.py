"""Cost Frontier: what does a million tokens cost on this hardware, at this speed?

The frame: the shared sidebar is drawn once here, then the chosen page runs.
"""

import streamlit as st

from ui import data, frame

st.set_page_config(page_title="Cost Frontier", layout="wide", page_icon=":material/payments:")
page = frame.navigation()
try:
    frame.start(page.url_path)
    page.run()
finally:
    data.end()   # the rerun's snapshot is released: a version replaced meanwhile closes now
