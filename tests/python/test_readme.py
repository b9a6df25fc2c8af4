"""The README's Python example runs and prints what it says it prints."""
import contextlib
import io
import os
import re

import pytest

from conftest import ROOT


def test_readme_example():
    pytest.importorskip("pandas")
    text = open(os.path.join(ROOT, "README.md")).read()
    code = re.search(r"## Python\n.*?```python\n(.*?)```", text, re.S).group(1)
    promised = [l[2:] for l in code.splitlines() if l.startswith("# ") and "  " in l]
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    lines = out.getvalue().splitlines()
    assert lines[0] == "2 local Linux vm 6.18.44-fc-v769 x86_64 2746"
    for want in promised:
        assert want in lines, (want, lines)
