"""Random prompt dicts, mostly valid and sometimes odd (test_models.py: whatever the
validator accepts is served)."""

_ODD = [None, "", "x", "\u00e9", "\ud800", 0, 7, -1, True, False, 1.5, float("nan"), [], ["a"], [1],
        {}, {"a": 1}, (), ("a",), "{", "}", "{a}", "{{a}}", "{zz}", len]


def _maybe(rng, valid):
    """``valid`` most of the time, else an odd value."""
    return valid if rng.random() < 0.95 else rng.choice(_ODD)


def _text(rng):
    if rng.random() < 0.6:
        return "hi"
    return _maybe(rng, rng.choice(["say {a}", "{a} and {b}", "{{a}}", "{a}{a}", "x}y", "{"]))


def _uri(rng):
    if rng.random() < 0.6:
        return "u:hi"
    return _maybe(rng, rng.choice(["file:///{a}", "{a}", "u:{a}/{b}", "{a}{a}", "h{a}", "a b", "{{a}}"]))


def _block(rng):
    kind = rng.choice(["text", "image", "audio", "resource", "resource_link", "video"])
    block = {"type": kind}
    if kind == "text":
        block["text"] = _text(rng)
    elif kind in ("image", "audio"):
        block.update(data=_maybe(rng, "AAAA"), mimeType=_maybe(rng, "image/png"))
    elif kind == "resource":
        block["resource"] = _maybe(rng, {"uri": _uri(rng), rng.choice(["text", "blob"]): "AAAA"})
    elif kind == "resource_link":
        block.update(uri=_uri(rng), name=_maybe(rng, "r"))
    for key, value in (("annotations", {"priority": 0.5}), ("_meta", {"k": 1}), ("extra", 1)):
        if rng.random() < 0.15:
            block[key] = _maybe(rng, value)
    return block


def _message(rng):
    msg = {"role": _maybe(rng, rng.choice(["user", "assistant"]))}
    if rng.random() < 0.8:
        msg["text"] = _text(rng)
    else:
        msg["content"] = _block(rng)
    if rng.random() < 0.05:
        msg[rng.choice(["text", "content", "rol"])] = "x"
    return msg


def _argument(rng, name):
    arg = {"name": _maybe(rng, name if rng.random() < 0.95 else "a")}
    for key, value in (("title", "T"), ("description", "D"), ("required", rng.random() < 0.5),
                       ("default", "d"), ("completions", ["x"]), ("requird", True)):
        if rng.random() < (0.05 if key == "requird" else 0.3):
            arg[key] = _maybe(rng, value)
    if rng.random() < 0.05:
        del arg["name"]
    return _maybe(rng, arg)


def generated_prompt(rng):
    """One prompt dict drawn from ``rng`` (a ``random.Random``)."""
    p = {"name": _maybe(rng, rng.choice(["p", "q", "caf\u00e9"]))}
    for key, value in (("title", "T"), ("description", "D"), ("icons", [{"src": "https://e.x/i.png"}]),
                       ("_meta", {"k": 1}), ("descripton", "x")):
        if rng.random() < (0.05 if key in ("descripton", "icons", "_meta") else 0.3):
            p[key] = _maybe(rng, value)
    if rng.random() < 0.9:
        p["arguments"] = _maybe(rng, [_argument(rng, n) for n in "abc"[:rng.randrange(4)]])
    if rng.random() < 0.95:
        p["messages"] = _maybe(rng, [_message(rng) for _ in range(rng.choice((0, 1, 1, 1, 1, 2)))])
    if rng.random() < 0.03:
        p["render"] = _maybe(rng, lambda arguments: "x")
    return p
