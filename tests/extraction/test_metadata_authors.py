"""Authors of this text, not of the site (issue 54, false authors): each class of false author shown by a fragment
of markup, with the same byline where it does name the text's author beside it."""

from __future__ import annotations

from .test_metadata_placed import article, metadata_of

SITE_LINKS = "<ul><li><a href='/archive'>Archive</a></li><li><a href='/about'>About</a></li></ul>"


def test_a_byline_in_the_sites_sidebar_is_the_owners():
    # "By John Gruber" beside every page of a blog, in its sidebar: the site's byline, not this page's
    sidebar = f"<div id='Sidebar'><p>By <strong>John Gruber</strong></p>{SITE_LINKS}</div>"
    assert metadata_of(article(before=sidebar)).authors == ()
    navigation = f"<div class='site-nav'><p>By John Gruber</p>{SITE_LINKS}</div>"
    assert metadata_of(article(before=navigation)).authors == ()
    # the same line above the text, outside any sidebar, is the byline
    assert metadata_of(article(before="<div><p>By <strong>John Gruber</strong></p></div>")).authors == ("John Gruber",)


def test_a_profile_widget_in_the_sidebar_is_not_the_author():
    # a Blogger "About me" widget: rel="author" on the blog owner's profile link
    profile = (
        "<div class='sidebar section' id='sidebar-right-1'><div class='widget Profile'><dl><dt>"
        "<a class='profile-name-link g-profile' rel='author' href='https://www.blogger.com/profile/1'>Andrew Zonenberg"
        "</a></dt></dl></div></div>"
    )
    assert metadata_of(article(after=profile, paragraphs=20)).authors == ()
    link = "<p>Story by <a rel='author' href='/staff/ann'>Ann Lee</a></p>"
    assert metadata_of(article(after=link + profile, paragraphs=20)).authors == ("Ann Lee",)
    outside_item = "<div id='sidebar'><meta itemprop='author' content='Andrew Zonenberg'></div>"
    assert metadata_of(article(before=outside_item)).authors == ()


def test_the_posts_own_footer_and_a_layout_wrapper_keep_the_byline():
    # "Posted by" in the article's footer (Blogger, the V8 blog) names the post's author
    footer = "<footer><p>Posted by Alon Zakai.</p></footer>"
    assert metadata_of(article(after=footer, paragraphs=20)).authors == ("Alon Zakai",)
    # a wrapper that only says a sidebar sits beside the text, and a body class that says the layout has one
    wrapped = article(byline="<p>By Ann Lee</p>")
    wrapped = wrapped.replace("<article>", "<div class='content-sidebar-wrap has-sidebar'><article>")
    wrapped = wrapped.replace("</article>", "</article></div>").replace("<body>", "<body class='right-sidebar'>")
    assert metadata_of(wrapped).authors == ("Ann Lee",)


def test_a_commenters_posted_by_after_the_text_is_not_the_author():
    comment = "<div id='comments'><div><p>Posted by Random Reader</p><p>Great piece, thanks.</p></div></div>"
    assert metadata_of(article(after=comment, paragraphs=20)).authors == ()
    assert metadata_of(article(after="<p>Posted by Ursula Eggers</p>", paragraphs=20)).authors == ("Ursula Eggers",)


def test_a_page_wide_class_that_names_comments_hides_no_byline_and_no_date():
    # the root's and the body's classes describe the whole page ("comments-open"), a grid's says "responsive"
    html = article(byline="<div class='responsivegrid'><p>By Ann Lee</p><p>Nov 9, 2012 7:15 PM</p></div>")
    html = html.replace("<html lang='en'>", "<html lang='en' class='feature_chompcommentimages'>")
    metadata = metadata_of(html.replace("<body>", "<body class='single comments-open'>"))
    assert (metadata.authors, metadata.date_published) == (("Ann Lee",), "2012-11-09")
    # a comment section's own class still marks its lines
    reply = "<section id='replies'><div><p>Posted by Barbara Brooklyn</p><p>We went in May.</p></div></section>"
    assert metadata_of(article(after=reply, paragraphs=20)).authors == ()


def test_a_headline_is_no_byline_whatever_an_ancestors_class_says():
    # a shop's item: <article class="... author-carmel-hagen"> three levels above the product's name
    item = article().replace("<article>", "<article class='ProductItem hentry author-carmel-hagen'><section><div>")
    item = item.replace("<h1>A plan for the old market</h1>", "<h1>Plant Based Food Colors</h1></div></section>")
    assert metadata_of(item).authors == ()
    # a heading whose own class says byline is one
    assert metadata_of(article(byline="<h2 class='art-byline'>STAN COLLYMORE 31/12/2007</h2>")).authors == (
        "STAN COLLYMORE",
    )


def test_a_property_that_lists_several_names_and_a_by_in_markup():
    # RDFa: one property attribute, several names; the template's own <meta name="author"> says something else
    head = (
        '<meta property="dc:creator twitter:site_name" content="Creator Name">'
        '<meta name="author" content="Someone Else">'
    )
    assert metadata_of(article(head=head)).authors == ("Creator Name",)
    assert metadata_of(article(head='<meta property="dcterms:creator" content="Ann Lee">')).authors == ("Ann Lee",)
    # a name is one word list, not several names: "Updated Date" is no "date"
    updated = '<meta name="Updated Date" content="2024-02-23T20:02:11Z">'
    assert metadata_of(article(head=updated)).date_published is None
    # "By" belongs to the byline, not the name; a restatement under another name adds no second author
    byl = '<meta name="byl" content="By NATE SILVER"><meta name="author" content="NATE SILVER">'
    assert metadata_of(article(head=byl)).authors == ("NATE SILVER",)


def test_a_teasers_byline_names_another_storys_author():
    # a "most read" list above the article: each item links a story by its headline and names its author
    teasers = "<ul>" + "".join(
        f"<li><a href='/2015/03/{n}'>Another story that many people read this week, number {n}</a>"
        f"<span class='byline'><a href='/writer/{n}'>Melvin Konner</a></span></li>"
        for n in range(1, 4)
    )
    assert metadata_of(article(before=teasers + "</ul>")).authors == ()
    # a byline's own list links no headline
    own = "<ul class='meta'><li>By <a href='/staff/ann'>Ann Lee</a></li><li>June 5, 2024</li></ul>"
    assert metadata_of(article(byline=own)).authors == ("Ann Lee",)
    # a post shown as a list item holds the text it names the author of
    post = article(byline="<p>by Lucy Zhang on Wednesday, October 19, 2011 at 1:31pm</p>")
    post = post.replace("<h1>", "<ul><li><h1><a href='/notes/1'>A Faster Way to Message on Mobile Phones</a>")
    post = post.replace("</article>", "</li></ul></article>")
    assert metadata_of(post).authors == ("Lucy Zhang",)


def test_user_names_in_a_posted_by_list_are_accounts_not_people():
    # a blog's "Posted by" list of its team's accounts: one user name in lower case among single words
    posted = "<div>Posted by kovarex, TOGos, Ernestas, Albert on 2019-02-15, <a href='/blog/'>all posts</a></div>"
    assert metadata_of(article(byline=posted)).authors == ()
    assert metadata_of(article(byline="<p>Posted by J_Doe, Albert</p>")).authors == ()
    # full names beside an account stay; single names with no account among them stay too
    two = "<p>Posted by Ann Lee, bstone on 2019-02-15</p>"
    assert metadata_of(article(byline=two)).authors == ("Ann Lee",)
    assert metadata_of(article(byline="<p>Posted by Ernestas, Albert</p>")).authors == ("Ernestas", "Albert")
