"""The site's words for every kind of deal end, from the engine's own results and sheet lines, in both
languages (issue 22 §1.1–§1.3): made / down by N, counted as made without play (defenders passed, or a
half-whist not returned), all-pass per player, misère made / caught, zastrel, void, out of time, an
interrupted deal, a judge's award and the timeout penalty; signed amounts; Russian plural forms."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Browser, Page

from app.engine.bids import Bid
from app.engine.conventions import Conventions
from app.engine.result import DealKind, DealResult, PlayMode, WhistCall
from app.engine.scoring.sheet import ScoreSheet
from tests.server.conftest import ServerProcess

NAMES = {"ru": ["Анна", "Борис", "Вера"], "en": ["Anna", "Boris", "Vera"]}
W, P, HALF = WhistCall.WHIST, WhistCall.PASS, WhistCall.HALF_WHIST


def _game(contract: str, calls: Any, tricks: dict[int, int] | None, **more: Any) -> DealResult:
    play = (PlayMode.OPEN if tricks is not None else None) if "play" not in more else more.pop("play")
    return DealResult(
        seats=3,
        dealer=0,
        kind=DealKind.MISERE if contract.startswith("misere") else DealKind.GAME,
        declarer=1,
        contract=Bid.parse(contract),
        calls=tuple(calls),
        play=play,
        tricks=tricks,
        **more,
    )


def _line(result: DealResult) -> dict[str, Any]:
    """The sheet's own history line for the deal (its writes), as the server sends it."""
    sheet = ScoreSheet.new(3, Conventions()).apply(result)
    return sheet.history[-1].to_json()


# kind -> (result, line, Russian words, English words)
CASES: dict[str, tuple[DealResult | None, dict[str, Any] | None, str, str]] = {}


def _case(kind: str, result: DealResult, ru: str, en: str) -> None:
    CASES[kind] = (result, _line(result), ru, en)


_case(
    "made",
    _game("7h", [(2, W), (0, P)], {1: 8, 2: 2, 0: 0}),
    "Борис: 7♥ сыграна, 8 взяток",
    "Boris: 7♥ made, 8 tricks",
)
_case(
    "down",
    _game("7h", [(2, W), (0, P)], {1: 5, 2: 3, 0: 2}),
    "Борис: 7♥ без 2 взяток (5 взяток)",
    "Boris: 7♥ down 2 (5 tricks)",
)
_case(
    "down_by_one",
    _game("6s", [(2, W), (0, P)], {1: 5, 2: 4, 0: 1}),
    "Борис: 6♠ без 1 взятки (5 взяток)",
    "Boris: 6♠ down 1 (5 tricks)",
)
_case(
    "no_play",
    _game("6s", [(2, P), (0, P)], None),
    "Борис: 6♠ засчитана сыгранной без розыгрыша (вистующие спасовали)",
    "Boris: 6♠ counted as made without play (the defenders passed)",
)
_case(
    "half_whist",
    _game("6s", [(2, P), (0, HALF)], None),
    "Борис: 6♠ засчитана сыгранной без розыгрыша (полвиста, игра не возвращена)",
    "Boris: 6♠ counted as made without play (half-whist, not returned)",
)
_case(
    "allpass",
    DealResult(seats=3, dealer=0, kind=DealKind.ALLPASS, tricks={0: 1, 1: 4, 2: 5}),
    "Распасы: Анна 1 взятка, Борис 4 взятки, Вера 5 взяток",
    "All-pass: Anna 1 trick, Boris 4 tricks, Vera 5 tricks",
)
_case(
    "allpass_clean",
    DealResult(seats=3, dealer=0, kind=DealKind.ALLPASS, tricks={0: 0, 1: 2, 2: 8}),
    "Распасы: Анна 0 взяток, Борис 2 взятки, Вера 8 взяток",
    "All-pass: Anna 0 tricks, Boris 2 tricks, Vera 8 tricks",
)
_case(
    "misere_made",
    _game("misere", [], {1: 0, 2: 6, 0: 4}, play=PlayMode.OPEN),
    "Борис: мизер сыгран",
    "Boris: misère made",
)
_case(
    "misere_caught",
    _game("misere", [], {1: 2, 2: 4, 0: 4}, play=PlayMode.OPEN),
    "Борис: мизер пойман, 2 взятки",
    "Boris: misère caught, 2 tricks",
)
_case(
    "zastrel",
    DealResult(seats=3, dealer=0, kind=DealKind.ZASTREL, declarer=1, contract=Bid.parse("6s")),
    "Борис: застрел (6♠): без трёх, без вистов",
    "Boris: zastrel (6♠): three down, no whists",
)
_case(
    "void",
    DealResult(seats=3, dealer=0, kind=DealKind.VOID, timed_out=(2,)),
    "Раздача не записана: распасы после тайм-аута, без розыгрыша. Время вышло: Вера",
    "Deal not scored: all-pass after a timeout, not played. Out of time: Vera",
)
_case(
    "out_of_time",
    _game("6s", [(2, W), (0, P)], {1: 6, 2: 4, 0: 0}, timed_out=(1,)),
    "Борис: 6♠ сыграна, 6 взяток. Время вышло: Борис",
    "Boris: 6♠ made, 6 tricks. Out of time: Boris",
)


def _sheet_cases() -> dict[str, tuple[dict[str, Any], str, str]]:
    """Lines of the sheet that are not a deal as played: the judge's award and its revision, the timeout
    penalty (RULES §5.8), a negative write (the revision undoes the first award)."""
    sheet = ScoreSheet.new(3, Conventions())
    award = _game("6s", [(2, P), (0, P)], None)
    awarded = sheet.award(4, award)
    revised = awarded.revise_award(4, DealResult(seats=3, dealer=0, kind=DealKind.VOID))
    timeout = sheet.timeout(1)
    return {
        "awarded": (
            awarded.history[-1].to_json(),
            "Решение судьи: Борис: 6♠ засчитана сыгранной без розыгрыша (вистующие спасовали)",
            "Judge's award: Boris: 6♠ counted as made without play (the defenders passed)",
        ),
        "award_revised": (
            revised.history[-1].to_json(),
            "Решение судьи пересмотрено: Раздача не записана: распасы после тайм-аута, без розыгрыша. "
            "Борис \u22122 в пулю",
            "Judge's award revised: Deal not scored: all-pass after a timeout, not played. "
            "Boris \u22122 pool",
        ),
        "timeout_penalty": (
            timeout.history[-1].to_json(),
            "Штраф за время: каждый пишет на Борис 50 вистов",
            "Time penalty: each opponent writes 50 whists on Boris",
        ),
    }


async def _page(browser: Browser, server: ServerProcess) -> Page:
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(f"{server.url}/")
    await page.wait_for_function("() => document.querySelector('#page')?.childElementCount > 0")
    return page


EVAL = """async ({lang, names, cases, lines}) => {
    localStorage.setItem("preferans.lang", lang);
    const words = await import("/static/js/words.js");
    const name = (s) => names[s] ?? `#${s}`;
    const out = {};
    for (const [kind, [result, line]] of Object.entries(cases)) {
        out[kind] = words.resultWords(result, line, name);
    }
    for (const [kind, line] of Object.entries(lines)) out[kind] = words.lineWords(line, name);
    out.interrupted = words.interruptedWords("operator stop");
    out.interrupted_plain = words.interruptedWords(null);
    return out;
}"""


@pytest.mark.parametrize("lang", ["ru", "en"])
async def test_every_deal_kind_in_words(sqlite_server: ServerProcess, browser: Browser, lang: str) -> None:
    page = await _page(browser, sqlite_server)
    sheet_cases = _sheet_cases()
    got = await page.evaluate(
        EVAL,
        {
            "lang": lang,
            "names": NAMES[lang],
            "cases": {k: [r.to_json() if r else None, line] for k, (r, line, _, _) in CASES.items()},
            "lines": {k: line for k, (line, _, _) in sheet_cases.items()},
        },
    )
    index = 2 if lang == "ru" else 3
    for kind, case in CASES.items():
        result, line = case[0], case[1]
        assert result is not None and line is not None
        expected = ". ".join(filter(None, [str(case[index]), _writes_text(line, lang)]))
        assert got[kind] == expected, (kind, got[kind], expected)
        assert "+-" not in got[kind] and "+\u2212" not in got[kind]
    for kind, (line, ru, en) in sheet_cases.items():
        expected = ru if lang == "ru" else en
        if kind == "awarded":
            expected += ". " + _writes_text(line, lang)
        assert got[kind] == expected, (kind, got[kind])
    interrupted = {
        "ru": (
            "Раздача прервана (operator stop) и ждёт решения судьи",
            "Раздача прервана и ждёт решения судьи",
        ),
        "en": (
            "Deal interrupted (operator stop), awaiting a judge's award",
            "Deal interrupted, awaiting a judge's award",
        ),
    }[lang]
    assert (got["interrupted"], got["interrupted_plain"]) == interrupted


def _writes_text(line: dict[str, Any], lang: str) -> str:
    """What the sheet wrote, as the words must say it: a signed amount, whists in the plural form due."""
    names = NAMES[lang]
    parts = []
    for w in line["writes"]:
        amount = f"+{w['amount']}" if w["amount"] > 0 else f"\u2212{-w['amount']}"
        who = names[w["seat"]]
        if w["column"] == "whists":
            if lang == "ru":
                noun = {"one": "вист", "few": "виста", "many": "вистов"}[_russian_form(abs(w["amount"]))]
                parts.append(f"{who} {amount} {noun} на {names[w['on']]}")
            else:
                noun = "whist" if abs(w["amount"]) == 1 else "whists"
                parts.append(f"{who} {amount} {noun} on {names[w['on']]}")
        else:
            column = {
                "ru": {"pool": "в пулю", "mountain": "в гору"},
                "en": {"pool": "pool", "mountain": "mountain"},
            }
            parts.append(f"{who} {amount} {column[lang][w['column']]}")
    return "; ".join(parts)


def _russian_form(n: int) -> str:
    """The CLDR rule for Russian integers (one: 1, 21, 31…; few: 2–4, 22–24…; many: the rest)."""
    if n % 10 == 1 and n % 100 != 11:
        return "one"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return "few"
    return "many"


async def test_russian_plural_forms_from_0_to_25(sqlite_server: ServerProcess, browser: Browser) -> None:
    page = await _page(browser, sqlite_server)
    nouns = {
        "tricks": {"one": "взятка", "few": "взятки", "many": "взяток"},
        "whists_n": {"one": "вист", "few": "виста", "many": "вистов"},
        "cards": {"one": "карта", "few": "карты", "many": "карт"},
        "players": {"one": "игрок", "few": "игрока", "many": "игроков"},
        "seconds": {"one": "секунда", "few": "секунды", "many": "секунд"},
        "minutes": {"one": "минута", "few": "минуты", "many": "минут"},
        "messages": {"one": "сообщение", "few": "сообщения", "many": "сообщений"},
    }
    got = await page.evaluate(
        """async (keys) => {
            localStorage.setItem("preferans.lang", "ru");
            const {tn, signed} = await import("/static/js/i18n.js");
            const out = {};
            for (const key of keys) out[key] = Array.from({length: 26}, (_, n) => tn(key, n));
            out.signed = [signed(4), signed(-4), signed(0)];
            return out;
        }""",
        list(nouns),
    )
    for key, forms in nouns.items():
        for n in range(26):
            assert got[key][n] == f"{n} {forms[_russian_form(n)]}", (key, n, got[key][n])
    assert got["signed"] == ["+4", "\u22124", "0"]
    assert got["tricks"][3] == "3 взятки" and got["tricks"][21] == "21 взятка"
    assert got["tricks"][11] == "11 взяток"
