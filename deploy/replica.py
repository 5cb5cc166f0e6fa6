"""``streamlit run`` with the handshake guard (:mod:`deploy.handshake_guard`) installed first: how deploy/serve.py
and ``make run`` start the dashboard.

    python deploy/replica.py run app.py [--server.port 8501 ...]     # the arguments of `streamlit run`
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from deploy.handshake_guard import install  # noqa: E402

if __name__ == "__main__":
    install()
    from streamlit.web.cli import main

    sys.exit(main(prog_name="streamlit"))
