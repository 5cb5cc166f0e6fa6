import os
import sys

EXIT_INTERRUPTED = 130   # model.cli.interrupt's, written here: a press may come before that module is imported


def _interrupted_exit() -> None:
    """Exit 130 after Ctrl-C, as said. Not ``sys.exit``: when the press landed while an extension module ran Python
    code during its import, CPython (3.11) marks the KeyboardInterrupt unhandled although ours caught it, and at
    exit kills the process with SIGINT (exit -2, as a shell sees 'killed by Ctrl-C') instead of exiting 130."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)


try:
    from model.cli import main
except KeyboardInterrupt:  # Ctrl-C while the CLI itself is still being imported: nothing began
    print("interrupted: nothing was changed", file=sys.stderr)
    _interrupted_exit()

code = main()
if code == EXIT_INTERRUPTED:
    _interrupted_exit()
sys.exit(code)
