#!/usr/bin/env python3
"""Regenerates table.json, the x-kubernetes-* extensions of Kubernetes' built-in types.

k8s-openapi's schemas carry none of the list types, list-map keys and map types the
apiserver's own OpenAPI gives its types; kubegen adds them from this table wherever a CRD
embeds a k8s-openapi type (runtime/core/src/schema/k8s_extensions.rs). The table is derived from
what a running kube-apiserver serves at /openapi/v3 for its own groups (not those of
CustomResourceDefinitions), read through kubectl:

    runtime/core/src/schema/k8s_extensions/generate.py --kubeconfig "$(../shared/k8s/start)"

For every definition of those documents, it keeps
- the definition's own `x-kubernetes-map-type`,
- each property's `x-kubernetes-list-type`, `x-kubernetes-list-map-keys` and
  `x-kubernetes-map-type`,
- the `default` of each property that some list map uses as a key (the apiserver refuses a
  CRD whose list-map keys are neither required nor defaulted),
and writes them sorted, one definition per line, so a regeneration diffs line by line.
tests/embedded_apply.rs derives the same table from a running apiserver and compares.
"""

import argparse
import json
import os
import subprocess
import sys

EXTENSIONS = ("x-kubernetes-list-map-keys", "x-kubernetes-list-type", "x-kubernetes-map-type")
REF_PREFIX = "#/components/schemas/"


def get(kubeconfig, path):
    out = subprocess.run(
        ["kubectl", "--kubeconfig", kubeconfig, "get", "--raw", path],
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out)


def built_in(path, crd_groups):
    """Whether an /openapi/v3 path is the apiserver's own: `api`, `api/v1`, `apis`, or
    `apis/<group>[/<version>]` of a group no CustomResourceDefinition serves."""
    parts = path.split("/")
    if parts[0] == "api":
        return True
    return parts[0] == "apis" and (len(parts) == 1 or parts[1] not in crd_groups)


def served_definitions(kubeconfig):
    """Every definition of the documents /openapi/v3 lists for the apiserver's own groups."""
    definitions = {}
    crds = get(kubeconfig, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
    crd_groups = {crd["spec"]["group"] for crd in crds["items"]}
    index = get(kubeconfig, "/openapi/v3")
    for path in sorted(p for p in index["paths"] if built_in(p, crd_groups)):
        document = get(kubeconfig, index["paths"][path]["serverRelativeURL"])
        for name, schema in document.get("components", {}).get("schemas", {}).items():
            if name in definitions and extensions(definitions[name]) != extensions(schema):
                sys.exit(f"{name}: documents disagree on its extensions")
            definitions.setdefault(name, schema)
    return definitions


def extensions(schema):
    return {k: v for k, v in schema.items() if k in EXTENSIONS}


def item_definition(list_schema):
    ref = list_schema.get("items", {}).get("$ref", "")
    return ref[len(REF_PREFIX):] if ref.startswith(REF_PREFIX) else None


def table(definitions):
    out = {}

    def entry(name):
        return out.setdefault(name, {})

    for name, schema in definitions.items():
        own = extensions(schema)
        if own:
            entry(name).update(own)
        for prop, prop_schema in schema.get("properties", {}).items():
            found = extensions(prop_schema)
            if found:
                entry(name).setdefault("properties", {}).setdefault(prop, {}).update(found)
            if prop_schema.get("x-kubernetes-list-type") != "map":
                continue
            item = item_definition(prop_schema)
            item_schema = definitions.get(item, {})
            for key in prop_schema.get("x-kubernetes-list-map-keys", []):
                key_schema = item_schema.get("properties", {}).get(key, {})
                if "default" in key_schema:
                    props = entry(item).setdefault("properties", {})
                    props.setdefault(key, {})["default"] = key_schema["default"]
    return out


def write(path, version, definitions):
    lines = [f'  {json.dumps(name)}: {json.dumps(value, sort_keys=True)}'
             for name, value in sorted(definitions.items())]
    with open(path, "w") as f:
        f.write('{\n  "kubernetes": %s,\n  "definitions": {\n' % json.dumps(version))
        f.write(",\n".join("  " + line for line in lines))
        f.write("\n  }\n}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kubeconfig", required=True, help="a kubeconfig of the apiserver to read")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "table.json"))
    args = parser.parse_args()
    version = get(args.kubeconfig, "/version")["gitVersion"]
    definitions = table(served_definitions(args.kubeconfig))
    write(args.out, version, definitions)
    properties = sum(len(d.get("properties", {})) for d in definitions.values())
    print(f"{args.out}: {len(definitions)} definitions, {properties} properties ({version})",
          file=sys.stderr)


if __name__ == "__main__":
    main()
