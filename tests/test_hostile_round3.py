"""Regression tests for the hostile inputs of issue 32, one (or a few) per defect, named after it.

Growth checks count work or use generous ratios: 10x the page must cost well under 100x (quadratic code costs
about 100x), never a wall-clock budget that a loaded machine could miss.
"""

from __future__ import annotations

import io
import random
from collections import Counter

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from scrapy_web2text import extract
from scrapy_web2text.batch.runner import Options, record_row
from scrapy_web2text.batch.warc import read_html
from scrapy_web2text.page.decode import decode_html, read_bytes
from scrapy_web2text.page.sniff import non_html_reason

# --- 1. legacy-encoded pages passed as bytes ---------------------------------------------------------------

JAPANESE = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所で泣いていた。"
CHINESE = "我们的祖国是花园，花园的花朵真鲜艳。和暖的阳光照耀着我们，每个人脸上都笑开颜。今天天气很好，一起去公园。"
KOREAN = "다람쥐 헌 쳇바퀴에 타고파. 키스의 고유조건은 입술끼리 만나야 하고 특별한 기술은 필요치 않다."
RUSSIAN = "Съешь же ещё этих мягких французских булок, да выпей чаю. В чащах юга жил бы цитрус? Да, но фальшивый!"
#: (text, encoding) of the legacy pages a crawl still meets.
LEGACY = [
    (JAPANESE, "shift_jis"),
    (JAPANESE, "euc_jp"),
    (CHINESE, "gb18030"),
    (CHINESE, "gbk"),
    (KOREAN, "euc_kr"),
    (RUSSIAN, "windows-1251"),
    (RUSSIAN, "koi8_r"),
]


def legacy_page(text: str, meta: str | None = None, repeats: int = 8) -> str:
    head = f"<meta charset={meta}>" if meta else ""
    return f"<html><head>{head}<title>{text[:6]}</title></head><body><p>{text * repeats}</p></body></html>"


@pytest.mark.parametrize(("text", "encoding"), LEGACY)
@pytest.mark.parametrize("declared", ["meta", "content_type", "encoding", "undeclared"])
def test_legacy_encoded_bytes_are_decoded_not_thrown_away_as_binary(text, encoding, declared):
    data = legacy_page(text, encoding if declared == "meta" else None).encode(encoding)
    keywords = {"content_type": f"text/html; charset={encoding}"} if declared == "content_type" else {}
    if declared == "encoding":
        keywords = {"encoding": encoding}
    result = extract(data, **keywords)
    assert result.skipped is None
    assert text[:12] in result.main_text
    assert non_html_reason(data, keywords.get("content_type"), keywords.get("encoding")) is None


def test_the_issues_shift_jis_page_gives_its_text():
    sentence = "吾輩は猫である。名前はまだ無い。"
    html = "<html><head><meta charset=shift_jis><title>猫</title></head><body><p>" + sentence * 20
    result = extract((html + "</p></body></html>").encode("shift_jis"))
    assert result.skipped is None and "吾輩は猫である。名前はまだ無い。" in result.main_text
    undeclared = html.replace("<meta charset=shift_jis>", "") + "</p></body></html>"
    assert "吾輩は猫である" in extract(undeclared.encode("shift_jis")).main_text


def test_content_type_charset_counts_like_encoding():
    data = legacy_page(RUSSIAN, repeats=2).encode("koi8_r")
    by_type = extract(data, content_type="text/html; charset=KOI8-R")
    assert RUSSIAN[:20] in by_type.main_text
    assert by_type.main_text == extract(data, encoding="koi8-r").main_text


def test_a_meta_charset_after_the_prescan_window_is_obeyed():
    head = '<meta name="description" content="words">' * 200 + "<meta charset=windows-1251>"
    html = f"<html><head>{head}</head><body><p>{RUSSIAN * 3}</p></body></html>"
    assert len(html.split("<meta charset")[0]) > 4096
    assert RUSSIAN[:30] in extract(html.encode("cp1251")).main_text
    # Text of the body that looks like a declaration is not read as one.
    body = f"<html><head></head><body><p>{'Words of an article. ' * 300}</p><pre>&lt;meta charset=koi8-r&gt;</pre>"
    assert read_bytes(body.encode()).encoding == "utf-8"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_declared_by_an_xml_declaration_is_read(codec):
    label = codec.replace("-le", "le").replace("-be", "be")
    html = f'<?xml version="1.0" encoding="{label}"?><html><body><p>{"Words of the article here. " * 20}</p>'
    result = extract((html + "</body></html>").encode(codec))
    assert result.skipped is None and "Words of the article here." in result.main_text


def test_valid_html_followed_by_megabytes_of_binary_junk_keeps_its_article():
    article = "<html><body><h1>Headline</h1><p>" + "The article is read before the junk starts. " * 30 + "</p>"
    junk = random.Random(3).randbytes(2_000_000)
    result = extract(article.encode() + junk)
    assert result.skipped is None and "The article is read before the junk starts." in result.main_text


def test_bytes_that_are_text_in_no_encoding_are_still_binary():
    noise = random.Random(5).randbytes(4096)
    assert extract(noise).skipped == "binary"
    assert extract(bytes(range(256)) * 4).skipped == "binary"
    assert read_bytes(noise).binary


def test_mostly_utf8_with_a_stray_legacy_byte_stays_utf8():
    data = ("<p>" + "Crème brûlée à la façade. " * 10).encode() + b"caf\xe9</p>"
    text = decode_html(data)
    assert "Crème brûlée à la façade." in text and "caf\ufffd" in text


def _warc_with_legacy_pages(path) -> list[tuple[str, str]]:
    pages = []
    with path.open("wb") as stream:
        writer = WARCWriter(stream, gzip=True)
        for number, (text, encoding) in enumerate(LEGACY[:5]):
            url = f"http://legacy.example/{number}.html"
            body = legacy_page(text).encode(encoding)  # no <meta>: only the HTTP header says the charset
            headers = [("Content-Type", f"text/html; charset={encoding}"), ("Content-Length", str(len(body)))]
            http = StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http))
            pages.append((url, text))
    return pages


def test_warc_records_with_the_charset_in_their_http_header_decode(tmp_path):
    pages = dict(_warc_with_legacy_pages(tmp_path / "legacy.warc.gz"))
    counts: Counter = Counter()
    rows = [record_row(record, Options()) for record in read_html(tmp_path / "legacy.warc.gz", counts)]
    assert counts["html"] == 5 and len(rows) == 5
    for row in rows:
        assert "skipped" not in row
        assert pages[row["url"]][:12] in row["main_text"]
