import sys

try:
    from model.cli import main
except KeyboardInterrupt:  # Ctrl-C while the CLI itself is still being imported: nothing began
    print("interrupted: nothing was changed", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
