#!/usr/bin/env python3
"""Writes table.json, the built-in API the in-memory server serves, from a recording of a
real kube-apiserver (v1.36.2, default flags).

    generate.py RECORDING > table.json

RECORDING is a directory holding
- resources.json: every top-level resource of the apiserver's discovery (group, version,
  resource, kind, singular, namespaced, shortNames, categories, verbs, storageVersionHash,
  subresources with their kinds and verbs, preferred);
- field-selectors.json: per `group/version/resource` (`core` for the core group), the field
  labels the apiserver accepts, and field-selector-refusals.json: its answer to an unknown
  label;
- openapi-v3/*.json.gz: the apiserver's /openapi/v3 documents;
- apis.json, api__v1.json and apis__<group>__<version>.json: the legacy discovery documents
  (`/apis`, `/api/v1`, `/apis/<group>/<version>`), served as recorded.

The table keeps each resource's discovery facts, the name of its kind's OpenAPI definition
and its field selectors, and every definition without descriptions (the in-memory server
resolves references when it first needs a kind).
"""

import glob
import gzip
import json
import os
import sys


def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k != "description"}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def main(recording):
    definitions = {}
    for path in sorted(glob.glob(os.path.join(recording, "openapi-v3", "*.json.gz"))):
        with gzip.open(path) as f:
            document = json.load(f)
        definitions.update(document.get("components", {}).get("schemas", {}))
    by_gvk = {}
    for name, schema in definitions.items():
        for gvk in schema.get("x-kubernetes-group-version-kind", []):
            by_gvk[(gvk["group"], gvk["version"], gvk["kind"])] = name
    with open(os.path.join(recording, "resources.json")) as f:
        resources = json.load(f)
    with open(os.path.join(recording, "field-selectors.json")) as f:
        selectors = json.load(f)
    with open(os.path.join(recording, "field-selector-refusals.json")) as f:
        refusals = json.load(f)
    table = []
    for r in resources:
        key = f"{r['group'] or 'core'}/{r['version']}/{r['resource']}"
        refusal = refusals.get(key, [None, ""])[1].replace("bogus.field", "{label}")
        table.append({
            "group": r["group"],
            "version": r["version"],
            "resource": r["resource"],
            "kind": r["kind"],
            "singular": r["singular"],
            "namespaced": r["namespaced"],
            "shortNames": r["shortNames"],
            "categories": r["categories"],
            "verbs": r["verbs"],
            "storageVersionHash": r["storageVersionHash"],
            "preferred": r["preferred"],
            "subresources": [
                {
                    "name": s["name"],
                    "kind": s["kind"],
                    "group": s["group"],
                    "version": s["version"],
                    "verbs": s["verbs"],
                }
                for s in r["subresources"]
            ],
            "definition": by_gvk.get((r["group"], r["version"], r["kind"])),
            "fieldSelectors": selectors.get(key),
            "fieldSelectorRefusal": refusal or None,
        })
    used = set()

    def walk(name):
        if name in used or name not in definitions:
            return
        used.add(name)
        refs = []

        def find(value):
            if isinstance(value, dict):
                ref = value.get("$ref")
                if isinstance(ref, str):
                    refs.append(ref.rsplit("/", 1)[-1])
                for v in value.values():
                    find(v)
            elif isinstance(value, list):
                for v in value:
                    find(v)

        find(definitions[name])
        for ref in refs:
            walk(ref)

    for r in table:
        if r["definition"]:
            walk(r["definition"])
        for s in r["subresources"]:
            if s["group"] is not None or s["kind"] != r["kind"]:
                walk(by_gvk.get((s["group"] or "", s["version"] or "", s["kind"]), ""))
    with open(os.path.join(recording, "apis.json")) as f:
        groups = json.load(f)["groups"]
    lists = {}
    for path in sorted(glob.glob(os.path.join(recording, "api*__*.json"))):
        with open(path) as f:
            document = json.load(f)
        lists[document["groupVersion"]] = document["resources"]
    out = {
        "groups": groups,
        "resourceLists": lists,
        "resources": table,
        "definitions": {n: strip(definitions[n]) for n in sorted(used)},
    }
    json.dump(out, sys.stdout, indent=None, separators=(",", ":"), sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
