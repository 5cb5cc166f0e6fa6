#!/usr/bin/env bash
# The system packages the tests need, installed with apt-get when missing (run by `make test`):
# Debian's chromium (browser tests, PDF reports), poppler-utils (the PDF's text and pages), nginx
# (the reverse-proxy test) and LibreOffice Calc without a GUI (soffice: the workbook's formulas recalculated,
# tests/test_workbook.py). Without apt-get, or without permission, it says what is missing and the
# tests that need it skip with that reason.
set -u
missing=()
{ command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; } || missing+=(chromium)
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
{ command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; } || missing+=(nginx)
{ command -v soffice >/dev/null 2>&1 || command -v libreoffice >/dev/null 2>&1; } || missing+=(libreoffice-calc-nogui)
[ ${#missing[@]} -eq 0 ] && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
  echo "installing ${missing[*]} with apt-get"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null \
    || echo "warning: could not install ${missing[*]}; the tests that need them will be skipped"
else
  echo "warning: ${missing[*]} missing and apt-get unavailable (or not root); the tests that need them will be skipped"
fi
exit 0
