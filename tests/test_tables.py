"""The one table writer every study uses: CSV full precision, Markdown/LaTeX rendered or given."""

from __future__ import annotations

import pandas as pd
import pytest

from evalsci.tables import write_table


def test_writes_each_format_by_suffix(tmp_path):
    df = pd.DataFrame({"model": ["a", "b"], "acc": [0.123456789, float("nan")]})
    outs = [tmp_path / f"t.{ext}" for ext in ("csv", "md", "tex")]
    write_table(df, outs, floatfmt=".2f")
    back = pd.read_csv(outs[0])
    assert back["acc"].iloc[0] == pytest.approx(0.123456789, rel=1e-12)  # CSV keeps precision
    assert "0.12" in outs[1].read_text() and "0.1235" not in outs[1].read_text()
    assert "--" in outs[2].read_text()  # NaN in LaTeX
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv", "t.md", "t.tex"]


def test_paper_shaped_text_overrides_rendering(tmp_path):
    df = pd.DataFrame({"x": [1]})
    write_table(
        df, [tmp_path / "t.md", tmp_path / "t.tex"], markdown="| custom |", latex=r"\begin{tabular}"
    )
    assert (tmp_path / "t.md").read_text() == "| custom |\n"
    assert (tmp_path / "t.tex").read_text() == "\\begin{tabular}\n"


def test_unsupported_suffix_fails_and_leaves_nothing(tmp_path):
    with pytest.raises(ValueError, match=r"unsupported table format: .*t\.xlsx"):
        write_table(pd.DataFrame({"x": [1]}), [tmp_path / "t.xlsx"])
    assert list(tmp_path.iterdir()) == []
