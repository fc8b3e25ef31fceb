"""A small index written by the tests: ruling documents in the seed layouts, ingested with catalog.ingest."""

from __future__ import annotations

from pathlib import Path

from rulings.search import catalog

# One ruling per line, all dated 2020-01-01 ("Rulings" / "• YYYY-MM-DD" layout).
RULINGS = [
    "Each +1/+1 counter on a creature gives it an extra point of power and toughness.",
    "The creature enters the battlefield with three +1/+1 counters on it.",
    "Put a -1/-1 counter on each creature your opponents control.",
    "A creature with -1/-1 counters on it may die to state-based actions.",
    "Remove a charge counter from the artifact to draw a card.",
    "{T}: Add {G}. This is a mana ability and doesn't use the stack.",
    "Add {G} to your mana pool only once each turn.",
    "If X is 0, the spell still resolves and does nothing.",
    "You choose the value of {X} as you cast the spell.",
    "Creatures with shadow can't be blocked except by creatures with shadow.",
    "That creature can’t be blocked this turn.",
    "The creature can be blocked as normal by creatures with reach.",
    "Æther Vial lets you put creature cards onto the battlefield.",
    "Lim-Dûl the Necromancer returns the creature at the end of the turn.",
    "Dandân attacks only if defending player controls an Island.",
    "Sacrificed creatures go to their owner's graveyard.",
    "If you sacrifice a creature this way, you gain 2 life.",
    "Sacrificing a permanent is never a cost reduction.",
    "Viscera Seer lets you scry 1.",
    "Landcycling lets you search for a land.",
    "Cycling abilities are activated abilities that work from your hand.",
    "See rule 702.19b for trample over planeswalkers.",
    "Rule 702.1 describes keyword abilities.",
    "The text T: Add {C} on old printings means the tap symbol.",
    "Kicker is an optional additional cost.",
    "You may pay {W/P} with 2 life instead of white mana.",
    "Hybrid {2/W} can be paid with two generic mana.",
]

# Card-name layout: a card name line, then DD/MM/YYYY dates each followed by the text.
CARDS = {
    "fire_ice.txt": ("Fire // Ice", [
        ("01/06/2020", "Fire // Ice is both red and blue while it is in your hand."),
        ("01/02/2018", "You may cast either half of Fire // Ice but not both."),
    ]),
    "ice.txt": ("Ice", [("05/05/2019", "Ice taps the permanent it targets and you draw a card.")]),
    "delver.txt": ("Delver of Secrets // Insectile Aberration", [
        ("01/10/2021", "Delver of Secrets transforms at the beginning of your upkeep if you reveal an instant."),
    ]),
    "vial.txt": ("Æther Vial", [("01/01/2010", "Æther Vial's counter ability can be activated at instant speed.")]),
}

# A ruling shared by many cards (it merges into one entry) and one card's own ruling.
SHARED = "Evolve triggers whenever a creature with greater power or toughness enters the battlefield."
SHARERS = ["Cloudfin Raptor", "Experiment One", "Shambleshark", "Gyre Sage", "Elusive Krasis", "Pteramander"]
SPECIFIC = ("Cloudfin Raptor", "Cloudfin Raptor gets the counter from evolve even if it flies.")


def write_corpus(folder: Path) -> list[Path]:
    """Write the documents into folder; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["Rulings", ""]
    for text in RULINGS:
        lines += ["• 2020-01-01", "  " + text]
    paths = [folder / "rulings.txt"]
    paths[0].write_text("\n".join(lines) + "\n", "utf-8")
    for name, (card, rulings) in CARDS.items():
        body = [card, ""]
        for date, text in rulings:
            body += [date, "", text, ""]
        (folder / name).write_text("\n".join(body), "utf-8")
        paths.append(folder / name)
    for number, card in enumerate(SHARERS):
        body = [card, "", "03/03/2019", "", SHARED, ""]
        if card == SPECIFIC[0]:
            body += ["03/03/2019", "", SPECIFIC[1], ""]
        path = folder / f"evolve_{number}.txt"
        path.write_text("\n".join(body), "utf-8")
        paths.append(path)
    return paths


def build_index(folder: Path) -> Path:
    """Write the corpus under folder/docs and ingest it into folder/index."""
    write_corpus(folder / "docs")
    catalog.ingest(folder / "index", [folder / "docs"])
    return folder / "index"
