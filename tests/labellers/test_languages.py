"""The language identifier built from the package's copy of py3langid's model answers exactly as py3langid does,
and a damaged copy is refused with its reason."""

import json

import numpy as np
import py3langid
import pytest
import stop_words

from scrapy_web2text import ModelError
from scrapy_web2text.labellers.web2text import languages

SENTENCES = [
    "Der schnelle braune Fuchs springt über den faulen Hund und läuft dann in den Wald zurück.",
    "Le gouvernement a annoncé mardi une série de mesures pour soutenir les agriculteurs touchés par la sécheresse.",
    "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。",
    "我们今天去公园散步，天气很好，很多人在湖边钓鱼。",
    "Москва — столица России, крупнейший по численности населения город страны.",
    "ข่าวล่าสุดวันนี้ รัฐบาลประกาศมาตรการใหม่เพื่อช่วยเหลือเกษตรกร",
    "The committee will meet again next week to discuss the budget for the coming year.",
    "Home | About us | Contact | Privacy policy | Terms of use",
    "",
    "12345 67890",
    "\u00a0\u200b",
]


def stopword_texts() -> list[str]:
    """A text of each stop-words language: its list's first 150 words."""
    return [" ".join(stop_words.get_stop_words(name)[:150]) for name in stop_words.LANGUAGE_MAPPING.values()]


def test_the_identifier_answers_as_py3langid_does():
    assert languages.load_identifier()
    texts = SENTENCES + stopword_texts() + [text[: len(text) // 3] for text in stopword_texts()]
    ours = [languages._identifier.classify(text) for text in texts]
    assert ours == [py3langid.classify(text) for text in texts]  # the language and the very same score
    assert [languages.identify(text) for text in SENTENCES[:6]] == ["de", "fr", "ja", "zh", "ru", "th"]
    assert languages.identifier_loaded()


def test_the_packaged_copy_holds_the_installed_py3langids_model(tmp_path):
    from scrapy_web2text.research.language_model import read_source, source_model, write_copy

    written, described = write_copy(source_model(), tmp_path / "languages.npz")
    with np.load(languages.LANGUAGE_MODEL) as shipped, np.load(written) as fresh:
        assert shipped.files == fresh.files
        for name in shipped.files:
            assert shipped[name].dtype == fresh[name].dtype and np.array_equal(shipped[name], fresh[name]), name
    fresh_description = json.loads(described.read_text())
    shipped_description = json.loads(languages.LANGUAGE_MODEL.with_suffix(".json").read_text())
    # The same model file (its hash, shapes, licence), whichever py3langid 0.4 release installed it.
    fresh_description.pop("source"), shipped_description.pop("source")
    assert fresh_description == shipped_description
    source = read_source(source_model())
    with np.load(languages.LANGUAGE_MODEL) as shipped:
        assert np.array_equal(shipped["ptc"], source["ptc"])
    assert (tmp_path / "languages-LICENSE.txt").read_text().startswith("py3langid")


def tiny_model() -> dict[str, np.ndarray]:
    """Two languages, three features, two states: byte ``a`` moves to the state that gives feature 2."""
    nextmove = np.zeros(2 * 256, dtype=np.uint32)
    nextmove[ord("a")] = nextmove[256 + ord("a")] = 1
    return {
        "ptc": np.array([[0.0, 0.0], [0.0, 0.0], [-1.0, -3.0]], dtype=np.float16),
        "pc": np.array([-0.5, -0.5], dtype=np.float32),
        "classes": np.array(["xa", "xb"]),
        "nextmove": nextmove,
        "nextmove_row": np.array([0, 1], dtype=np.uint16),
        "out_feat": np.array([-1, 2], dtype=np.int32),
    }


def write_model(path, arrays, described=None):
    np.savez_compressed(path, **arrays)
    description = {"format": languages.LANGUAGE_MODEL_FORMAT} if described is None else described
    path.with_suffix(".json").write_text(json.dumps(description))
    return path


def test_a_sound_copy_is_read_and_identifies(tmp_path):
    identifier = languages.read_language_model(write_model(tmp_path / "tiny.npz", tiny_model()))
    assert identifier.classify("aaa")[0] == "xa"  # feature 2 scores -1 for xa, -3 for xb


@pytest.mark.parametrize(
    "damage, reason",
    [
        (lambda arrays: arrays.pop("out_feat"), "no out_feat array"),
        (lambda arrays: arrays.update(pc=arrays["pc"].astype(np.float64)), "pc is float64"),
        (lambda arrays: arrays.update(classes=np.array(["xa"])), "do not fit together"),
        (lambda arrays: arrays["nextmove"].__setitem__(5, 2), "do not fit together"),  # a transition to no state
        (lambda arrays: arrays.update(out_feat=np.array([-1, 3], dtype=np.int32)), "do not fit together"),
        (lambda arrays: arrays.update(nextmove_row=np.array([0, 2], dtype=np.uint16)), "do not fit together"),
        (lambda arrays: arrays.update(nextmove=arrays["nextmove"][:300]), "do not fit together"),
        (lambda arrays: arrays.update(classes=np.array([{"x": 1}, {"y": 2}], dtype=object)), "cannot read"),
    ],
)
def test_a_damaged_copy_is_refused_with_its_reason(tmp_path, damage, reason):
    arrays = tiny_model()
    damage(arrays)
    with pytest.raises(ModelError, match=reason):
        languages.read_language_model(write_model(tmp_path / "damaged.npz", arrays))


@pytest.mark.parametrize("described", [{"format": "another"}, ["not", "an", "object"]])
def test_a_copy_without_its_description_is_refused(tmp_path, described):
    path = write_model(tmp_path / "tiny.npz", tiny_model(), described)
    with pytest.raises(ModelError, match="description"):
        languages.read_language_model(path)
    path.with_suffix(".json").unlink()
    with pytest.raises(ModelError, match="cannot read"):
        languages.read_language_model(path)


def test_a_damaged_packaged_copy_fails_every_page_at_once_with_its_reason(tmp_path, monkeypatch):
    damaged = write_model(tmp_path / "languages.npz", {**tiny_model(), "out_feat": np.array([-1, 9], dtype=np.int32)})
    monkeypatch.setattr(languages, "LANGUAGE_MODEL", damaged)
    monkeypatch.setattr(languages, "_identifier", None)
    monkeypatch.setattr(languages, "_failure", None)
    reads = []
    monkeypatch.setattr(languages, "read_language_model", lambda path: reads.append(path) or real_read(path))
    for _ in range(3):
        with pytest.raises(ModelError, match="do not fit together"):
            languages.identify("Der schnelle braune Fuchs springt über den faulen Hund.")
    assert reads == [damaged]  # read once: the later pages get the same error without reading it again
    assert not languages.identifier_loaded()


real_read = languages.read_language_model
