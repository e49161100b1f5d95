#!/usr/bin/env python3
"""Extracts, from a checkout of github.com/ocsf/ocsf-schema at a release tag,
the part of the schema skillwire's events use: for each class, its attribute
names (with its parents' and the profiles'), its activity ids; for each object,
its attribute names (with its parents'); the object type of each dictionary
attribute. Run: git -C ocsf-schema checkout 1.8.0 &&
python3 ocsf-subset.py ocsf-schema > ocsf-1.8.0.json"""
import json, os, sys

root = sys.argv[1]
def load(p): return json.load(open(os.path.join(root, p)))
dictionary = load("dictionary.json")["attributes"]
version = load("version.json")["version"]

def index(folder):
    out = {}
    for dp, _, fs in os.walk(os.path.join(root, folder)):
        for f in fs:
            if f.endswith(".json"):
                d = json.load(open(os.path.join(dp, f)))
                out[d["name"]] = d
    return out
events, objects, profiles = index("events"), index("objects"), index("profiles")
cats = load("categories.json")["attributes"]

def attrs(d):
    a = {}
    for k, v in d.get("attributes", {}).items():
        if k == "$include":
            for inc in v:
                a.update(attrs(json.load(open(os.path.join(root, inc)))))
        else:
            a[k] = v
    return a

def chain(d, table):
    out = {}
    while d:
        for k, v in attrs(d).items():
            out.setdefault(k, v)
        d = table.get(d.get("extends"))
    return out

classes = {}
for name in ["file_activity", "detection_finding", "file_remediation_activity"]:
    d, category = events[name], None
    a, e = {}, d
    while e:
        category = category or e.get("category")
        for k, v in attrs(e).items():
            if k not in a:
                a[k] = v
            elif "enum" in v and "enum" not in a[k]:
                a[k] = dict(a[k], enum=v["enum"])
        e = events.get(e.get("extends"))
    for p in profiles.values():
        a.update({k: v for k, v in attrs(p).items() if k not in a})
    uid = cats[category]["uid"] * 1000 + d["uid"]
    classes[str(uid)] = {"name": d["caption"], "category_uid": cats[category]["uid"],
        "attributes": sorted(a), "activity_id": {k: v["caption"] for k, v in a["activity_id"].get("enum", {}).items()}}

used = ["metadata", "product", "device", "actor", "user", "session", "file", "fingerprint",
        "finding_info", "analytic", "resource_details"]
objs = {n: sorted(chain(objects[n], objects)) for n in used}
types = {k: v["type"] for k, v in dictionary.items() if v.get("type") in objects}
json.dump({"version": version, "classes": classes, "objects": objs, "types": types}, sys.stdout, indent=1, sort_keys=True)
print()
