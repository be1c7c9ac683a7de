"""The SQL-side PII check (macros/pii_pattern.sql) uses the patterns the redaction defines."""

from __future__ import annotations

import re
from pathlib import Path

from lakemix.udf import pii

MACRO = Path(__file__).resolve().parents[4] / "macros" / "pii_pattern.sql"


def macro_patterns() -> dict[str, str]:
    text = MACRO.read_text()
    found = dict(re.findall(r"'(email|ipv4)': '([^']+)'", text))
    return {kind: pattern.replace("\\\\", "\\") for kind, pattern in found.items()}


def test_macro_patterns_equal_the_python_constants() -> None:
    assert macro_patterns() == {"email": pii.EMAIL_PATTERN_RE2, "ipv4": pii.IPV4_PATTERN_RE2}
