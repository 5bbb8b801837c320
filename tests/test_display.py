"""mctslab.display.Table: the HTML and the plain text show the same cells."""

import re

import pytest

from mctslab.display import LONG_TEXT, Table


def test_text_aligns_numbers_right_and_text_left():
    table = Table(["agent", "score", "games"], [["uct", "0.62 [0.55, 0.69]", 100], ["flat@450", 0.375, 8]])
    lines = str(table).splitlines()
    assert lines[0] == "agent                 score  games"
    assert lines[2] == "uct       0.62 [0.55, 0.69]    100"
    assert lines[3] == "flat@450              0.375      8"
    assert table.align == "lrr"
    assert repr(table) == str(table)


def test_caption_and_notes_wrap_to_100_characters():
    long = "word " * 60
    text = str(Table(["a"], [[1]], caption=long, notes=[long, "second"]))
    assert max(len(line) for line in text.splitlines()) <= 100
    assert text.splitlines()[-1] == "second"


def test_html_escapes_and_keeps_intervals_on_one_line():
    html = Table(["a<b"], [["96.8 [95.5, 97.7]"]], caption="x & y", notes="n")._repr_html_()
    assert "a&lt;b" in html and "x &amp; y" in html
    # The estimate and its interval are each kept whole; a table too wide for the window may put the
    # interval under its estimate (the one break allowed), rather than scroll.
    nowrap = '<span style="white-space:nowrap">{}</span>'
    assert f"{nowrap.format('96.8')} {nowrap.format('[95.5, 97.7]')}" in html
    assert html.count("<tr>") == 2


def test_html_cells_wrap_only_between_whole_words_and_only_prose_and_headers():
    prose = "the winning probability of the player to move, exactly"
    html = Table(
        ["policy", "R(10^4) / R(10^3)"], [["EpsilonGreedy(epsilon=0.1)", "8.2"], ["two words", prose]]
    )._repr_html_()
    cells = re.findall(r'<t[dh] style="([^"]*)">(.*?)</t[dh]>', html)
    words = re.compile(r'<span style="white-space:nowrap">(.*?)</span>')
    wraps = {" ".join(words.findall(text)) or text: "white-space:nowrap" not in style for style, text in cells}
    assert wraps == {
        "policy": False,  # a header of one word: nothing to break
        "R(10^4) / R(10^3)": True,  # a header breaks at its spaces, each word kept whole
        "EpsilonGreedy(epsilon=0.1)": False,  # never inside a word or a spec
        "8.2": False,
        "two words": False,  # a short body cell stays on one line
        prose: True,  # prose (over LONG_TEXT characters) wraps at its spaces
    }
    assert len(prose) > LONG_TEXT >= len("EpsilonGreedy(epsilon=0.1)")
    assert '<span style="white-space:nowrap">-&gt;</span>' in Table(["10^2 -> 10^3"], [[1]])._repr_html_()
    # the cells' text is unchanged
    assert Table(["a"], [[prose]]).rows == [[prose]]


def test_pretty_printer_uses_the_text():
    from IPython.lib.pretty import pretty

    table = Table(["a", "b"], [[1, 2]])
    assert pretty(table) == str(table)


def test_column_and_errors():
    table = Table(["a", "b"], [[1, "x"]])
    assert table.column("b") == ["x"]
    with pytest.raises(KeyError, match="the columns are"):
        table.column("c")
    with pytest.raises(ValueError, match="row 0 has 1 cells"):
        Table(["a", "b"], [[1]])
    with pytest.raises(ValueError, match="align"):
        Table(["a"], [[1]], align="c")


def test_tournament_results_show_real_tables_under_100_characters():
    from IPython.lib.pretty import pretty

    from mctslab.tournament import play_match, round_robin

    match = play_match("tictactoe", "flat:playouts=10", "random", games=6, seed=1, workers=1, progress=False)
    agents = ["random", "flat:playouts=10", "uct:iterations=20", "minimax:depth=1"]
    rr = round_robin("tictactoe", agents, games=2, seed=0, workers=1, progress=False)
    for result in (match, rr):
        text = pretty(result)
        assert max(len(line) for line in text.splitlines()) <= 100, text
        assert "<table" in result._repr_html_() and "<pre>" not in result._repr_html_()
    assert f"{match.outcomes.wins}  " in pretty(match).splitlines()[3]
    assert pretty(rr).count("\n") >= 6 + 4  # six pairings and four ratings
