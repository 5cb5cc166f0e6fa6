"""The figures a bundle's report prints, read back: ``report.html`` by its marked elements (each number's element
carries its figure's id, ``data-figure``, and each line of the first page its index, ``data-line``: read back, not
scraped) and ``report.pdf`` by its text (PDFium: every figure the HTML marks and every line of the first page must be
in it, spaces and line breaks aside), each against the answer :mod:`model.present.bundle_verify` rebuilt."""

from __future__ import annotations

import re
import unicodedata
from html.parser import HTMLParser

import pypdfium2

from model.present.bundle import Findings

__all__ = ["REPORT", "PDF", "check_report", "check_pdf", "pdf_text", "plain"]

#: the report a bundle holds, whose printed figures verify reads back
REPORT = "report.html"
#: its print, whose text verify reads back too
PDF = "report.pdf"
_NUMBER = re.compile(r"\$?-?[0-9][0-9,]*(?:\.[0-9]+)?(?:\s?%|x)?")


class _Marked(HTMLParser):
    """The text of every element carrying ``data-figure`` or ``data-line`` (nested tags counted)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.figures: list[tuple[str, str]] = []
        self.lines: list[tuple[str, str]] = []
        self._open: list[list] = []          # [kind, id, depth, parts]

    def handle_starttag(self, tag, attrs):
        for entry in self._open:
            entry[2] += 1
        found = dict(attrs)
        for kind in ("data-figure", "data-line"):
            if found.get(kind) is not None:
                self._open.append([kind, found[kind], 1, []])

    def handle_endtag(self, tag):
        for entry in list(self._open):
            entry[2] -= 1
            if entry[2] == 0:
                self._open.remove(entry)
                text = " ".join("".join(entry[3]).split())
                (self.figures if entry[0] == "data-figure" else self.lines).append((entry[1], text))

    def handle_data(self, data):
        for entry in self._open:
            entry[3].append(data)


def _changed_at(printed: str, rebuilt: str, text: str) -> int:
    """Where in ``rebuilt`` the occurrence of ``text`` that ``printed`` does not repeat begins (the first occurrence
    after which the two lines part; else the first)."""
    at = rebuilt.find(text)
    first = at
    while at >= 0:
        if printed[:at] == rebuilt[:at] and printed[at:at + len(text)] != text:
            return at
        at = rebuilt.find(text, at + 1)
    return first


def _printed_number(printed: str, rebuilt: str, at: int) -> str:
    if printed[:at] == rebuilt[:at]:
        match = _NUMBER.match(printed, at)
        if match:
            return match.group().strip()
    return printed[max(0, at - 10):at + 30]


def check_report(data: bytes, page, rebuilt: list[dict], findings: Findings) -> list[str]:
    """The figures ``report.html`` prints (its marked elements) against the rebuilt answer's, and its first page
    against ``page`` (:func:`model.present.report_sections.first_page` of the rebuilt answer). Returns the ids of the
    figures it marks (what its print holds too)."""
    parser = _Marked()
    try:
        parser.feed(data.decode("utf-8"))
        parser.close()
    except (UnicodeDecodeError, AssertionError) as exc:
        findings.differs.append((f"file {REPORT}", "the report's HTML", f"unreadable ({exc})"))
        return []
    if not parser.figures and not parser.lines:
        findings.differs.append((f"file {REPORT}", "its figures, marked for verify", "no figure verify can read"))
        return []
    by_id = {f["id"]: f for f in rebuilt}
    for fid, text in parser.figures:
        mine = by_id.get(fid)
        if mine is not None and text != mine["text"]:
            findings.differs.append((f"figure {fid} as {REPORT} prints it", mine["text"], text))
    lines = list(page.lines)
    printed = dict(parser.lines)
    page_one = [f for f in rebuilt if f["id"].startswith("page 1 |") and f["text"] != "—"]
    for i, line in enumerate(lines):
        shown = printed.get(str(i))
        if shown is None:
            findings.differs.append((f"{REPORT}, page 1, line {i + 1}", line, "(not printed)"))
            continue
        if shown == line:
            continue
        named = [f for f in page_one if line.count(f["text"]) > shown.count(f["text"])]
        for f in named:
            findings.differs.append((f"figure {f['id']} as {REPORT} prints it", f["text"],
                                     _printed_number(shown, line, _changed_at(shown, line, f["text"]))))
        if not named:
            findings.differs.append((f"{REPORT}, page 1, line {i + 1}", line, shown))
    for extra in sorted(set(printed) - {str(i) for i in range(len(lines))}):
        findings.differs.append((f"{REPORT}, page 1, line {extra}", "(no such line)", printed[extra]))
    return [fid for fid, _ in parser.figures]


def plain(text: str) -> str:
    """Text as a PDF's extraction and the answer's words compare: compatibility forms folded (a ligature is its
    letters), every space and line break out."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def pdf_text(data: bytes) -> str | None:
    """The text of every page of a PDF (PDFium), or None when it is not one PDFium can read. A hyphen where a line
    breaks comes out as U+FFFE: it is a hyphen."""
    try:
        document = pypdfium2.PdfDocument(data)
    except (pypdfium2.PdfiumError, ValueError, TypeError):
        return None
    try:
        return "".join(document[i].get_textpage().get_text_range() for i in range(len(document))).replace("\ufffe", "-")
    except (pypdfium2.PdfiumError, ValueError):
        return None
    finally:
        document.close()


def check_pdf(data: bytes, page, rebuilt: list[dict], marked: list[str], findings: Findings) -> None:
    """The text ``report.pdf`` prints against the rebuilt answer: each figure ``report.html`` marks (``marked``) and
    each line of the first page (``page``) must be in it, spaces and line breaks aside. A line that is not is named by
    the figure where it parts from the PDF's text (the longest start of it the text holds), else as a line."""
    text = pdf_text(data)
    if text is None:
        findings.differs.append((f"file {PDF}", "the report's PDF", "unreadable"))
        return
    printed = plain(text)
    by_id = {f["id"]: f for f in rebuilt}
    ahead = 0                                 # the figures come in the page's order: each looked for after the last
    for fid in dict.fromkeys(marked):
        mine = by_id.get(fid)
        if mine is None:
            continue
        want = plain(mine["text"])
        at = printed.find(want, ahead)
        if at >= 0:
            ahead = at + len(want)
        elif printed.find(want) < 0:
            findings.differs.append((f"figure {fid} as {PDF} prints it", mine["text"], "(not in its text)"))
    page_one = [f for f in rebuilt if f["id"].startswith("page 1 |") and f["text"] != "—"]
    for i, line in enumerate(page.lines):
        want = plain(line)
        if want in printed:
            continue
        low, high = 0, len(want)              # the longest start of the line the PDF's text holds
        while low < high:
            mid = (low + high + 1) // 2
            low, high = (mid, high) if want[:mid] in printed else (low, mid - 1)
        at = printed.find(want[:low]) + low if low else -1
        named = []                            # the figure of page 1 whose text the line parts at
        for f in page_one:
            start = want.find(plain(f["text"]))
            while start >= 0 and not start <= low < start + len(plain(f["text"])):
                start = want.find(plain(f["text"]), start + 1)
            if start >= 0:
                named.append((f, start))
        for f, start in named[:1]:
            begin = at - (low - start)            # where that figure's text would start in the PDF's text
            found = printed[begin:begin + len(plain(f["text"]))] if at >= 0 else "(not printed)"
            findings.differs.append((f"figure {f['id']} as {PDF} prints it", f["text"], found))
        if not named:
            findings.differs.append((f"{PDF}, page 1, line {i + 1}", line, "(not printed as such)"))
