"""The words the rules after decoding look for, in one place: class and id keywords, phrases, heading words, element
names.  A reader sees here what each rule matches; the rule modules import from here and hold the logic and the
thresholds.  The tables that the page walk and the features read too stay in ``page/tags.py``.

Class and id words are developers' words, English on most sites whatever their language; the walk lower-cases class
and id.  Word patterns branch on the first letter (:func:`~....page.elements.first_letter_alternation`): faster
than a plain alternation over a page's attributes.
"""

from __future__ import annotations

import re

from ....page.elements import first_letter_alternation

# --- furniture.py: review_sections ---------------------------------------------------------------------------------

#: Class/id words of buyers' reviews and ratings ("testimonial" is not one: on a product page it is a press quote).
REVIEW_WORD_LIST = ("review", "rating")
REVIEW_WORDS = re.compile(first_letter_alternation(REVIEW_WORD_LIST))

# --- furniture.py: aside_sections ----------------------------------------------------------------------------------

#: Class/id words of an article's asides (related rails, promotions, sign-up prompts, share bars, author boxes).
ASIDE_WORD_LIST = (
    "related", "recommend", "popular", "trending", "advert", "sponsor", "promo", "newsletter", "subscribe", "signup",
    "share", "social", "author-bio", "authorbio", "author_bio", "about-author", "author-box", "authorbox",
    "author-info",
)  # fmt: skip
#: :data:`ASIDE_WORD_LIST` anywhere in a class or id token (``jp-relatedposts``, ``pagepromo``).
ASIDE_WORDS = re.compile(first_letter_alternation(ASIDE_WORD_LIST))
#: The walk's keyword groups (``page/tags.py``) that hold every aside word: a page with none skips the search.
ASIDE_KEYWORD_GROUPS = ("related", "ad", "cookie", "social", "byline")
#: WordPress's taxonomy class tokens (``tag-social-media``, ``category-promotions``): their words are not the element.
TAXONOMY_TOKENS = re.compile(
    r"tag-(?<![\w-]tag-)[\w-]*|categor(?:y-(?<![\w-]category-)|ies-(?<![\w-]categories-))[\w-]*"
)
#: Headings are never asides: their ids are slugs of their own text ("What is social media marketing?").
HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})

# --- furniture.py: byline_sections ---------------------------------------------------------------------------------

#: Class/id words of a byline or dateline ("Posted by … on …"), metadata rather than text; each holds a ``byline`` word.
BYLINE_WORD_LIST = ("byline", "dateline", "entry-meta", "post-meta", "postmeta")
BYLINE_WORDS = re.compile(first_letter_alternation(BYLINE_WORD_LIST))

# --- furniture.py: landmark_sections (gaps.py and nothing_kept.py read its bits) ----------------------------------

#: Landmark elements (and their ARIA roles, ``page/marks.py``) that hold no page's main text.
LANDMARK_TAGS = ("nav", "footer", "aside")
#: A footer named by class or id; the walk's ``foot`` group alone would take ``footnote``, which is an article's text.
FOOTER_WORD_LIST = ("footer",)
FOOTER_WORDS = re.compile(first_letter_alternation(FOOTER_WORD_LIST))

# --- furniture.py: screen_reader_blocks ----------------------------------------------------------------------------

#: Classes that hide text from the eye for screen readers (``sr-only``, ``screen-reader-text``, ``visually-hidden``).
SCREEN_READER_WORD_LIST = (
    "sr-only",
    "screen-reader",
    "screenreader",
    "visually-hidden",
    "visuallyhidden",
    "a11y-hidden",
)
SCREEN_READER_WORDS = re.compile(first_letter_alternation(SCREEN_READER_WORD_LIST))
#: A link whose whole class and id are these is hidden until a keyboard reaches it ("hidden-xs" alone is not).
SKIP_LINK_CLASSES = frozenset({"hidden", "hide", "offscreen"})
#: Words one of which a page's classes hold where it has a skip link ("skip…" starts "Skip to content" links).
SKIP_LINK_WORDS = (*SKIP_LINK_CLASSES, "skip")

# --- promotions.py: carousel_sections, teaser_cards ----------------------------------------------------------------

#: Class/id words of a carousel or slider (Swiper, Splide, Slick, Glide, Owl): other content shown one at a time.
CAROUSEL_WORD_LIST = ("carousel", "slide", "swiper", "splide", "slick", "glide", "owl-")
#: :data:`CAROUSEL_WORD_LIST` anywhere in a class or id.
CAROUSEL_WORDS = re.compile(first_letter_alternation(CAROUSEL_WORD_LIST))
#: Class/id words of cards that announce other content of the site (insights, news, events, case studies…).
TEASER_CARD_WORD_LIST = (
    "insight", "resource", "blog", "news", "event", "webinar", "story", "stories", "case-stud", "casestud",
    "whitepaper",
)  # fmt: skip
#: :data:`TEASER_CARD_WORD_LIST` anywhere in a class or id.
TEASER_CARD_WORDS = re.compile(first_letter_alternation(TEASER_CARD_WORD_LIST))

#: Each class/id pattern above and the words it is made of, one of which a page's class and id strings must hold for
#: the pattern to match there: substring searches answer "none" faster than the pattern.
PATTERN_WORDS: dict[re.Pattern, tuple[str, ...]] = {
    REVIEW_WORDS: REVIEW_WORD_LIST,
    ASIDE_WORDS: ASIDE_WORD_LIST,
    BYLINE_WORDS: BYLINE_WORD_LIST,
    FOOTER_WORDS: FOOTER_WORD_LIST,
    SCREEN_READER_WORDS: SCREEN_READER_WORD_LIST,
    CAROUSEL_WORDS: CAROUSEL_WORD_LIST,
    TEASER_CARD_WORDS: TEASER_CARD_WORD_LIST,
}

# --- phrases.py: furniture_phrases ---------------------------------------------------------------------------------

#: Ad slots' labels and "story continues below" notes, lower case, in the corpora's and crawled pages' languages.
AD_LABELS = (
    "advertisement", "advertisements", "sponsored", "sponsored content", "sponsored links", "sponsored post",
    "paid content", "paid post", "promoted content", "promoted stories", "ad feedback",
    "story continues below", "story continues below advertisement", "article continues below advertisement",
    "continue reading below", "advertisement continue reading below", "scroll to continue with content",
    "anzeige", "werbung", "gesponsert",  # German
    "publicité", "sponsorisé", "contenu sponsorisé", "la suite après cette publicité", "la suite après la publicité",
    "publicidad", "patrocinado", "contenido patrocinado",  # Spanish
    "pubblicità", "sponsorizzato", "contenuto sponsorizzato",  # Italian
    "publicidade", "conteúdo patrocinado",  # Portuguese
    "advertentie", "gesponsord",  # Dutch
    "reklama", "materiał sponsorowany", "artykuł sponsorowany", "materiał promocyjny",  # Polish, Czech, Slovak
    "inzerce", "hirdetés", "publicitate", "reklam", "annons", "annonce", "reklame", "annonse", "mainos",
    "реклама", "διαφήμιση", "广告", "廣告", "広告", "スポンサーリンク", "광고", "إعلان", "פרסומת",
)  # fmt: skip
#: Prompts of the page's interface that a reader clicks rather than reads ("Back to top", "Click to expand").
INTERFACE_PROMPTS = (
    "back to top", "scroll to top", "click to expand", "read full article", "report this comment", "report abuse",
    "nach oben", "zurück nach oben",  # German
    "haut de page", "retour en haut", "retour en haut de page",  # French
    "volver arriba", "ir arriba", "torna su", "naar boven", "terug naar boven",  # Spanish, Italian, Dutch
    "do góry", "powrót do góry", "na górę", "voltar ao topo", "наверх", "till toppen",
)  # fmt: skip


def _phrase_pattern(phrases: tuple[str, ...]) -> str:
    """One line that is a phrase and nothing else, in any case, with blanks and punctuation (not a line break)
    around it and between its words."""
    words = first_letter_alternation(phrases).replace(r"\ ", r"[^\w\n]++")
    return rf"^[^\w\n]*+(?:{words})[^\w\n]*+$"


#: A line (a short kept block) that is one of the phrases above and nothing else: one scan over the joined blocks.
FURNITURE_PHRASE = re.compile(_phrase_pattern(AD_LABELS + INTERFACE_PROMPTS), re.IGNORECASE | re.MULTILINE)

# --- rails.py: announced_rails, outlying_link_lists ----------------------------------------------------------------

#: Headings that announce links to other pages, lower case, in 13 languages (no maintained list of them exists).
RAIL_HEADING_WORDS = (
    "related", "more from", "more stories", "read more", "read next", "recommended", "trending", "popular",
    "you may also", "you might also", "also read", "see also", "don't miss",
    "weitere", "mehr zum thema", "mehr aus", "lesen sie auch", "auch interessant", "könnte sie auch",
    "konnte sie auch", "empfehlungen", "meistgelesen",
    "lire aussi", "voir aussi", "sur le même sujet", "sur le meme sujet", "les plus lus",
    "te puede interesar", "también te puede", "tambien te puede", "relacionad", "más leíd", "más leid", "mas leíd",
    "mas leid", "lee tambi",
    "czytaj też", "czytaj tez", "zobacz też", "zobacz tez", "polecamy", "najpopularniejsze",
    "leggi anche", "potrebbe interessarti", "articoli correlati",
    "gerelateerd", "lees ook", "meest gelezen",
    "leia também", "leia tambem", "veja também", "veja tambem", "mais lidas",
    "související", "souvisejici", "nejčtenější", "nejctenejsi", "mohlo by vás zajímat", "čtěte také", "ctete take",
    "читайте также", "по теме", "похожие", "популярное", "самое читаемое",
    "相關", "相关", "熱門", "热门", "最新文章", "推薦", "推荐", "延伸閱讀", "延伸阅读", "猜你喜歡", "猜你喜欢",
    "其他的文章", "其他文章", "可能會有興趣", "可能感兴趣",
    "関連", "人気記事", "おすすめ", "あわせて読みたい", "最新記事", "ランキング",
    "관련", "인기", "추천", "많이 본",
)  # fmt: skip
#: :data:`RAIL_HEADING_WORDS` in lower-cased text (an IGNORECASE alternation is slower).
RAIL_HEADINGS = re.compile(first_letter_alternation(RAIL_HEADING_WORDS))
#: The element of a list's item, whose links make a rail of links.
LIST_ITEM_TAGS = frozenset({"li"})

# --- kept_text.py: kept_captions, excerpt_teasers, repeated_blocks -------------------------------------------------

#: The tag group of captions (of a figure or a table), one of the node tag groups the features test.
CAPTION_GROUP = "figcaption|caption"
#: How a blog's excerpt of another post ends (WordPress's default "more" mark is `` [&hellip;]``).
EXCERPT_ENDINGS = ("[…]", "[...]", "[ … ]", "[ ... ]")
#: Elements that hold a list's or a table's items, whose repeats of a shared label stay.
LIST_TAGS = frozenset({"ul", "ol", "dl", "table", "tbody"})
