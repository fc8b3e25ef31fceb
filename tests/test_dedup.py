
from rulings.corpus import corpus_files
from rulings.ingest.pipeline import build_entries
from rulings.ingest.read import read_file


def seed_rulings():
    return [r for p in corpus_files() for r in read_file(p).rulings]


def test_seeds_form_43_entries_with_four_merges():
    entries = build_entries(seed_rulings()).entries
    assert len(entries) == 43
    merged = sorted((len(e.variants), e.text[:30]) for e in entries if len(e.variants) > 1)
    assert merged == [
        (3, "Players can respond to a spell"),
        (4, "If a permanent or player has m"),
        (4, "When you proliferate, you can "),
        (4, "You don’t have to choose every"),
    ]


def test_damaged_copy_merges_and_entry_notes_repair():
    entries = build_entries(seed_rulings()).entries
    choose = next(e for e in entries if e.text.startswith("When you proliferate, you can choose"))
    assert any(v.ruling.text.startswith("hen you proliferate") for v in choose.variants)
    assert choose.repairs == ["first letter restored: 'hen' -> 'when'"]
    assert not choose.text.startswith("hen")                   # canonical text is an intact variant


def test_tap_and_untap_paragraphs_stay_apart():
    entries = build_entries(seed_rulings()).entries
    symbols = [e for e in entries if e.text.startswith(("The tap symbol is", "The untap symbol is"))]
    assert len(symbols) == 2


def test_ids_do_not_depend_on_input_order():
    rulings = seed_rulings()
    first = sorted(e.id for e in build_entries(rulings).entries)
    again = sorted(e.id for e in build_entries(list(reversed(seed_rulings()))).entries)
    assert first == again
    assert len(set(first)) == 43


# --- the verifier: pairs that must stay apart, and what may differ ---------------------------

from rulings.ingest.compare import same_ruling  # noqa: E402
from rulings.ingest.model import Ruling, Source  # noqa: E402
from rulings.ingest.normalise import fold, mask_card  # noqa: E402


def verdict(a, b, card_a=None, card_b=None):
    return same_ruling(mask_card(fold(a), card_a, a), mask_card(fold(b), card_b, b))


def test_counter_numbers_stay_apart():
    v = verdict("Put two +1/+1 counters on target creature you control.",
                "Put three +1/+1 counters on target creature you control.")
    assert not v.same and "two" in v.reason and "three" in v.reason


def test_can_and_cant_be_blocked_stay_apart():
    v = verdict("Goblin Heelcutter can't be blocked by more than one creature.",
                "Goblin Heelcutter can be blocked by more than one creature.")
    assert not v.same and v.reason.startswith("guard token differs")


def test_named_effects_stay_apart():
    template = ("If the target creature is an illegal target by the time {} tries to resolve, "
                "the spell doesn't resolve. You won't {}.")
    v = verdict(template.format("Moment of Triumph", "gain life"), template.format("Cruel Finality", "scry 1"),
                "Moment of Triumph", "Cruel Finality")
    assert not v.same
    assert verdict(template.format("Lich's Caress", "gain life"), template.format("Rile", "draw a card"),
                   "Lich's Caress", "Rile").same is False


def test_phyrexian_mana_colours_stay_apart():
    v = verdict("{W/P} can be paid with either {W} or 2 life.", "{B/P} can be paid with either {B} or 2 life.")
    assert not v.same and "{w/p}" in v.reason and "{b/p}" in v.reason


def test_short_rulings_with_negation_stay_apart():
    assert not verdict("It can attack.", "It can't attack.").same
    assert verdict("It can't attack.", "It can’t attack.").same


def test_own_card_name_and_templates_may_differ():
    assert verdict("Charge affects only creatures you control at the time it resolves.",
                   "Rallying Roar affects only creatures you control at the time it resolves.",
                   "Charge", "Rallying Roar").same
    assert verdict("If Mirror Image enters the battlefield at the same time as another creature, it can't copy it.",
                   "If Altered Ego enters at the same time as another creature, Altered Ego can't copy it.",
                   "Mirror Image", "Altered Ego").same
    assert verdict("The cost reduction can apply to alternative costs (such as dash costs).",
                   "The cost reduction can apply to alternative costs.").same


def test_other_creature_type_stays_apart():
    text = ("Because damage remains marked on a creature until it's removed as the turn ends, nonlethal damage "
            "dealt to a {} you control may become lethal if {} leaves the battlefield during that turn.")
    assert not verdict(text.format("Knight", "Valiant Knight"), text.format("Goblin", "Goblin Trashmaster"),
                       "Valiant Knight", "Goblin Trashmaster").same


def test_chinese_card_names_are_masked():
    a = "除非你能同时指定一个由你操控的生物和一个不由你操控的生物为目标，否则你不能施放难遏怒火。"
    b = "除非你能同时指定一个由你操控的生物和一个不由你操控的生物为目标，否则你不能施放蛮野重跺。"
    assert verdict(a, b, "难遏怒火", "蛮野重跺").same
    assert not verdict("在双头巨人游戏中，~的异能会让对手队伍失去2点生命。",
                       "在双头巨人游戏中，~的异能会让对手队伍失去4点生命。").same


def _ruling(text, card, position):
    return Ruling(text=text, source=Source("test.json", "mtgjson"), position=position, card=card,
                  date="2018-01-01", publisher="wotc")


def test_close_pairs_become_related_links_with_their_guard():
    rulings = [_ruling("Put two +1/+1 counters on each creature you control.", "A", 0),
               _ruling("Put three +1/+1 counters on each creature you control.", "B", 1)]
    entries = build_entries(rulings).entries
    assert len(entries) == 2
    first, second = entries
    assert [r.id for r in first.related] == [second.id]
    assert [r.id for r in second.related] == [first.id]
    assert "two" in first.related[0].reason and "three" in first.related[0].reason


def test_every_member_matches_the_canonical_text():
    entries = build_entries(seed_rulings()).entries
    for entry in entries:
        canonical = next(v.ruling for v in entry.variants if v.ruling.text == entry.text)
        for v in entry.variants:
            assert same_ruling(canonical.match, v.ruling.match).same


# --- real corpus ---------------------------------------------------------------------------

def test_bbd_partner_ruling_is_one_entry_of_22_cards(shared):
    rulings = read_file(shared / "realdata/mtgjson3-sets/BBD.json").rulings
    entries = build_entries(rulings).entries
    partner = [e for e in entries if e.text.startswith('"Partner with [name]" represents two abilities')]
    assert len(partner) == 1
    assert len(partner[0].cards) == 22


def test_kaladesh_energy_rulings_are_six_entries_of_70_cards(shared):
    # Kaladesh block: 47 energy cards in KLD and 23 in Aether Revolt share the same six rulings
    rulings = [r for code in ("KLD", "AER") for r in read_file(shared / f"realdata/mtgjson3-sets/{code}.json").rulings]
    entries = build_entries(rulings).entries
    assert sorted(len(e.cards) for e in entries if len(e.cards) >= 30) == [70] * 6
    energy = [e for e in entries if len(e.cards) == 70]
    assert all("energy" in e.text.lower() or "{E}" in e.text for e in energy)


def test_show_lists_variants_with_similarity_and_related_with_guard(runner, seed_index):
    from rulings.search.cli import cli
    entries = build_entries(seed_rulings()).entries
    tap = next(e for e in entries if e.text.startswith("The tap symbol is"))
    untap = next(e for e in entries if e.text.startswith("The untap symbol is"))
    result = runner.invoke(cli, ["show", tap.id, "--index", str(seed_index)])
    assert result.exit_code == 0, result.output
    assert f"{untap.id}: guard token differs: {{t}} vs {{q}}" in result.output
    assert "The untap symbol is {Q}." in result.output
    choose = next(e for e in entries if e.text.startswith("When you proliferate, you can choose"))
    result = runner.invoke(cli, ["show", choose.id, "--index", str(seed_index)])
    assert result.exit_code == 0, result.output
    assert "variants (4), with similarity to the canonical text:" in result.output
    shown = sorted(line.split("]")[0].strip(" [") for line in result.output.splitlines()
                   if line.startswith("  [") and "]" in line)
    assert shown == sorted(f"{v.similarity:.2f}" for v in choose.variants)
    assert "0." in shown[0]                       # the "To proliferate" and damaged variants are not identical


def test_identical_text_on_different_cards_is_one_entry(make_ruling):
    # the card name of one ruling appears in the other's text: masking differs, the text does not
    text = "If Wasteland Strangler's ability resolves, the exiled card is put into its owner's graveyard."
    a = make_ruling(text, card="Wasteland Strangler", set_code="BFZ")
    b = make_ruling(text, card="Dominator Drone", set_code="BFZ")
    c = make_ruling("指挥官法球让你加一点法术力。", card="指挥官法球", lang="zh-Hans")
    d = make_ruling("指挥官法球让你加一点法术力。", card="秘法印记", lang="zh-Hans")
    entries = build_entries([a, b, c, d]).entries
    assert sorted(len(e.variants) for e in entries) == [2, 2]


def test_band_index_finds_the_candidates_of_datasketch_lsh(shared):
    """The LSH tables of ingest/candidates.py give exactly MinHashLSH's candidates (same banding),
    before and after leaders are removed."""
    from datasketch import MinHash, MinHashLSH

    from rulings.ingest.candidates import LSH_THRESHOLD, LSH_WEIGHTS, NUM_PERM, BandIndex, shingles, signature_bytes
    from rulings.ingest.compare import compare_form, hard_tokens
    from rulings.ingest.normalise import normalise

    kept, _ = normalise(read_file(shared / "realdata" / "mtgjson3-sets" / "XLN.json").rulings)
    texts = sorted({r.match for r in kept})
    hashes = MinHash.bulk([shingles(hard_tokens(compare_form(t))) for t in texts], num_perm=NUM_PERM)
    lsh = MinHashLSH(threshold=LSH_THRESHOLD, num_perm=NUM_PERM, weights=LSH_WEIGHTS)
    bands = BandIndex()
    for number, mh in enumerate(hashes[::2]):
        lsh.insert(number, mh)
        bands.insert(number, signature_bytes(mh))
    found = [bands.query(signature_bytes(mh)) for mh in hashes]
    assert found == [set(lsh.query(mh)) for mh in hashes]
    assert sum(len(f) > 1 for f in found) > 10          # shared buckets were exercised
    for number, mh in list(enumerate(hashes[::2]))[::3]:
        lsh.remove(number)
        bands.remove(number, signature_bytes(mh))
    assert [bands.query(signature_bytes(mh)) for mh in hashes] == [set(lsh.query(mh)) for mh in hashes]


def test_rank_order_is_the_order_of_rank(shared):
    """The field-by-field sort of a full ingest gives sorted(key=rank), ties in input order."""
    from rulings.ingest.dedup import rank, rank_order
    from rulings.ingest.normalise import normalise

    rulings = seed_rulings()
    for name in ("XLN.json", "KLD.json", "AER.json"):
        rulings += read_file(shared / "realdata" / "mtgjson3-sets" / name).rulings
    for path in sorted((shared / "realdata" / "scryfall-cassette-mtgjson" / "decoded_bodies").glob("rulings_*")):
        rulings += read_file(path).rulings
    kept, _ = normalise(rulings + rulings[-50:])              # repeated rulings: ties keep input order
    assert any(r.repairs for r in kept) and any(r.publisher == "scryfall" for r in kept)
    assert rank_order(kept) == sorted(range(len(kept)), key=lambda i: rank(kept[i]))


def test_grouper_places_texts_the_same_after_its_tables_are_released(shared):
    """release_tables() drops the LSH tables and leader forms; the next add rebuilds them and
    places the texts exactly as a grouper that kept them (groups, members, links)."""
    from rulings.ingest.dedup import Grouper, rank_order
    from rulings.ingest.normalise import normalise

    rulings = []
    for name in ("XLN.json", "KLD.json", "AER.json"):
        rulings += read_file(shared / "realdata" / "mtgjson3-sets" / name).rulings
    kept, _ = normalise(rulings)
    keys = list(dict.fromkeys(("zh" if kept[i].lang.startswith("zh") else kept[i].lang, kept[i].match)
                              for i in rank_order(kept)))
    kept_tables, released = Grouper(), Grouper()
    half = len(keys) // 2
    kept_tables.add(keys[:half])
    released.add(keys[:half])
    released.release_tables()
    assert released._bands is None and released._forms == {}
    earlier = set(released.groups)
    touched = released.add(keys[half:])
    assert touched == kept_tables.add(keys[half:])
    assert released._bands is not None
    assert touched & earlier                                    # later texts joined earlier leaders
    shape = lambda g: ({n: (x.leader, x.members) for n, x in g.groups.items()}, g.group_of, g.links)
    assert shape(released) == shape(kept_tables)
    assert len(released.groups) < len(keys) and any(released.links.values())


def test_batch_signatures_are_datasketch_minhash_values(shared):
    """signatures() (one numpy pass over a batch) gives the hash values of datasketch's MinHash.bulk
    for every text of a real set, English and Chinese."""
    from datasketch import MinHash

    from rulings.ingest.candidates import NUM_PERM, shingles, signature_bytes, signatures
    from rulings.ingest.compare import compare_form, hard_tokens
    from rulings.ingest.normalise import normalise

    rulings = read_file(shared / "realdata" / "mtgjson3-sets" / "XLN.json").rulings
    release_notes = shared / "realdata" / "zh-cn-release-notes-athenacykes" / "release_notes"
    rulings += read_file(release_notes / "faq_xln.docx").rulings
    kept, _ = normalise(rulings)
    texts = sorted({r.match for r in kept})
    sets = [shingles(hard_tokens(compare_form(t))) for t in texts] + [shingles([]), shingles(["~"])]
    assert any(len(s) == 1 for s in sets) and any(compare_form(t).zh for t in texts)
    assert signatures(sets) == [signature_bytes(mh) for mh in MinHash.bulk(sets, num_perm=NUM_PERM)]


def test_grouping_is_the_same_with_forming_workers(shared, monkeypatch):
    """Texts formed in worker processes (formed_batches) are placed exactly as when
    everything runs in one process: the same groups, members, similarities and links."""
    from rulings.ingest import candidates, dedup, runtime
    from rulings.ingest.normalise import normalise

    rulings = []
    for name in ("XLN.json", "KLD.json", "AER.json"):
        rulings += read_file(shared / "realdata" / "mtgjson3-sets" / name).rulings
    kept, _ = normalise(rulings)
    keys = list(dict.fromkeys((dedup._lang_key(kept[i]), kept[i].match) for i in dedup.rank_order(kept)))
    monkeypatch.setattr(candidates, "ADD_BATCH", 100)
    assert len(keys) >= runtime.POOL_MIN_BATCHES * 100
    shape = lambda g: ({n: (x.leader, x.members, x.signature) for n, x in g.groups.items()}, g.group_of, g.links)
    alone, pooled = dedup.Grouper(), dedup.Grouper()
    monkeypatch.setattr(runtime, "FORM_WORKERS", 0)
    alone.add(keys)
    monkeypatch.setattr(runtime, "FORM_WORKERS", 2)
    batches = [[m for _, m in keys[i:i + 100]] for i in range(0, len(keys), 100)]
    with runtime.form_workers(len(keys)) as pool:
        assert pool is not None
        assert list(runtime.formed_batches(batches, pool)) == [candidates.form_batch(b) for b in batches]
    pooled.add(keys)
    assert shape(pooled) == shape(alone)
    assert len(alone.groups) < len(keys) and any(alone.links.values())


def test_card_types_table_is_the_rules_list(shared):
    """ingest/data/dedup_tables.json's types are CR 205's card types, subtypes and supertypes, as
    scripts/derive_dedup_tables.py reads them from the real rules."""
    import importlib.util
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("derive_dedup", root / "scripts/derive_dedup_tables.py")
    derive = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(derive)
    rules = (shared / derive.CR).read_text(encoding="utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    types = derive.card_types(rules)
    assert types == json.loads((root / "ingest/data/dedup_tables.json").read_text("utf-8"))["types"]
    assert {"goblin", "knight", "aura", "equipment", "forest", "legendary", "snow", "instant", "jace"} <= set(types)
    assert not {"its", "called", "the", "see", "rule"} & set(types)


def test_learned_alternations_hold_no_guard_word():
    """No learned alternation excuses a word of a guard class (types, zones, players, mechanics...)."""
    from rulings.ingest import compare

    for lang in ("en", "zh"):
        rows = compare.alternations(lang, 1)
        assert rows
        for a, b in rows:
            for side in (a, b):
                assert not compare.guard_words(lang == "zh", side, 0, len(side), list(side)), (lang, a, b)


def test_verifier_span_kinds():
    """The kinds of differing span the verifier tells apart (ingest/compare.py span_kind)."""
    assert verdict("The token copies exactly what was printed on the original card.",
                   "Lazav copies exactly what was printed on the original card.",
                   "God-Pharaoh's Gift", "Lazav, the Multifarious").same            # subject named another way
    assert verdict("If all its targets are illegal, the spell is countered and none of its effects happen.",
                   "If all its targets are illegal, the spell doesn't resolve and none of its effects happen."
                   ).same
    assert verdict("The converted mana cost of the spell remains unchanged, no matter what the total cost was.",
                   "The mana value of the spell is determined only by its mana cost, no matter what the total "
                   "cost was.").same
    assert not verdict("Target artifact you control gains indestructible until end of turn.",
                       "Target creature you control gains indestructible until end of turn.").same   # object type
    assert not verdict("If you control a Goblin, you may pay {1}.", "If you control a Knight, you may pay {1}.").same
    assert not verdict("Put the card into your graveyard.", "Put the card into your hand.").same          # zone
    assert not verdict("Each opponent loses life equal to its power.",
                       "Each player loses life equal to its power.").same
    assert not verdict("如果你操控生物，则此异能触发。", "如果你操控神器，则此异能触发。").same
    assert not verdict("该生物获得警戒异能直到回合结束。", "该生物获得践踏异能直到回合结束。").same      # mechanic
    assert verdict("如果你以这种方式施放咒语，则你可以支付额外费用。",
                   "如果你以这种方式施放牌，则你可以支付额外费用。").same


def test_one_word_slip_in_a_long_ruling_is_the_same_ruling():
    """A single content word against another (or none) where the rest of a ruling of at least
    SLIP_CONTEXT tokens agrees word for word is a wording variant (ingest/compare.py _one_slip); a
    guard word, a "non-" word, two slips, or a short ruling keep the pair apart."""
    long_a = ("The choice of creature type is made as the creature enters. Players can't respond to this choice. "
              "The bonus starts applying immediately.")
    assert verdict(long_a, long_a.replace("respond to", "react to")).same
    assert not verdict(long_a, long_a.replace("respond to", "react to").replace("immediately", "later")).same
    assert not verdict("If a land has an ability that triggers when it enters, it will lose that ability before it "
                       "triggers.", "If a nonbasic land has an ability that triggers when it enters, it will lose "
                       "that ability before it triggers.").same                      # nonbasic: a guard
    assert not verdict(long_a, long_a.replace("creature type", "artifact type")).same   # object type: a guard
    assert not verdict("Players can't respond to this choice.", "Players can't react to this choice.").same
    evil_twin = ("~ copies exactly what was printed on the original creature (unless that creature is copying "
                 "something else or is a token; see below). It doesn't copy whether that creature is tapped.")
    assert not verdict(evil_twin, evil_twin.replace("see below).", "see below) and it gains the activated "
                                                    "ability.")).same            # a clause added
    assert not verdict("If your team didn't gain life during the turn before the end step begins, ~'s last ability "
                       "won't trigger at all.", "If you didn't gain life during the turn before the end step "
                       "begins, ~'s last ability won't trigger at all.").same    # team: a player word
    assert verdict("如果在你施放该咒语后，但在其结算之前，其中任一目标已不合法，则另一个目标仍会受到相应的影响。",
                   "如果在你施放该咒语后，但在其结算之前，其中任一目标已不合法，则另一个目标仍会受到对应之影响。").same
