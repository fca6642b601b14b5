"""Serving prompts: pages and cursors, argument checks, rendering, completion matching."""

import pytest

from conftest import WORDS, Wire, completion_config, modern_wire, one, simple_config


# --- pages and cursors -----------------------------------------------------------------------

def test_pages_cover_every_prompt_once():
    wire = Wire(simple_config(250, page_size=20))
    wire.initialize()
    pages = wire.pages()
    assert len(pages) == 13
    names = [n for page in pages for n in page]
    assert names == sorted(names) and len(set(names)) == 250


def test_a_cursor_resumes_on_another_server_of_the_same_prompts():
    from tinymcp.protocol.revisions import LATEST_HANDSHAKE
    from tinymcp.protocol.session import Server
    prompts = Server(simple_config(1000, page_size=1)).config.prompts
    cursor, names, cursors = None, [], []
    while True:
        page, cursor = prompts.page(cursor, 1, "", LATEST_HANDSHAKE)
        names += [p["name"] for p in page]
        if cursor is None:
            break
        cursors.append(cursor)
    assert names == ["p%03d" % i for i in range(1000)]
    other = Server(simple_config(1000, page_size=1)).config.prompts
    for at in (0, 1, 500, 998):
        page, _ = other.page(cursors[at], 3, "", LATEST_HANDSHAKE)
        assert [p["name"] for p in page] == ["p%03d" % i for i in range(at + 1, min(at + 4, 1000))], at


def test_prompts_are_listed_in_declared_order_in_both_eras():
    names = ["code_review", "commit_message", "sql_explain", "annotated", "api_design"]
    config = {"page_size": 2, "prompts": [{"name": n, "messages": [{"role": "user", "text": n}]}
                                          for n in names]}
    wire = Wire(config)
    wire.initialize()
    assert sum(wire.pages(), []) == names
    modern, listed, cursor = modern_wire(config), [], None
    while True:
        [reply] = modern.modern("prompts/list", {} if cursor is None else {"cursor": cursor})
        listed += [p["name"] for p in reply["result"]["prompts"]]
        cursor = reply["result"].get("nextCursor")
        if cursor is None:
            break
    assert listed == names


def test_cursor_survives_prompts_added_or_removed_elsewhere():
    wire = Wire(simple_config(6, page_size=2))
    wire.initialize()
    first = wire.result("prompts/list")
    assert [p["name"] for p in first["prompts"]] == ["p000", "p001"]
    config = simple_config(6, page_size=2)
    config["prompts"] = [p for p in config["prompts"] if p["name"] != "p000"]  # before the cursor
    config["prompts"].insert(2, dict(config["prompts"][0], name="new"))       # after it
    wire.server.replace_config(config)
    second = wire.result("prompts/list", {"cursor": first["nextCursor"]})
    assert [p["name"] for p in second["prompts"]] == ["p002", "new"]


def test_a_cursor_whose_prompt_is_gone_is_invalid_and_the_client_starts_over():
    wire = Wire(simple_config(6, page_size=2))
    wire.initialize()
    first = wire.result("prompts/list")
    config = simple_config(6, page_size=2)
    config["prompts"] = [p for p in config["prompts"] if p["name"] != "p001"]
    wire.server.replace_config(config)
    assert wire.error("prompts/list", {"cursor": first["nextCursor"]}) == {
        "code": -32602, "message": "Invalid cursor"}


def test_a_handshake_era_cursor_made_before_declared_order_still_resumes():
    from tinymcp.model.config import encode_cursor
    wire = Wire(simple_config(6, page_size=2))
    wire.initialize()
    # the cursor format is unchanged: a cursor naming p003 resumes after p003
    result = wire.result("prompts/list", {"cursor": encode_cursor("p003")})
    assert [p["name"] for p in result["prompts"]] == ["p004", "p005"]


@pytest.mark.parametrize("cursor", ["", "garbage", "AAAAAAAA", 5, None, "x" * 5000])
def test_tampered_or_foreign_cursor_is_invalid(cursor):
    wire = Wire(simple_config(6, page_size=2))
    wire.initialize()
    good = wire.result("prompts/list")["nextCursor"]
    if cursor is None:
        cursor = good[:-1] + ("A" if good[-1] != "A" else "B")
    assert wire.error("prompts/list", {"cursor": cursor}) == {"code": -32602, "message": "Invalid cursor"}


def test_cursor_after_a_very_long_name_is_accepted():
    long = "n" * 5000
    wire = Wire({"page_size": 1, "prompts": [{"name": long, "messages": [{"role": "user", "text": "x"}]},
                                             {"name": "z", "messages": [{"role": "user", "text": "x"}]}]})
    wire.initialize()
    first = wire.result("prompts/list")
    assert [p["name"] for p in wire.result("prompts/list", {"cursor": first["nextCursor"]})["prompts"]] == ["z"]


def test_a_listing_never_mixes_cache_scopes_across_a_reload():
    # caching "Interaction with Pagination": the same scope MUST apply to every page; a
    # reload that changes it makes the old listing's cursor invalid, never a page 2 under
    # the new scope
    m = modern_wire(simple_config(7, page_size=3), list_changed=True)
    first = one(m.modern("prompts/list"))["result"]
    assert first["cacheScope"] == "public"
    m.server.replace_config(simple_config(7, page_size=3, cache_scope="private"))
    assert one(m.modern("prompts/list", {"cursor": first["nextCursor"]}))["error"] == {
        "code": -32602, "message": "Invalid cursor"}
    again = one(m.modern("prompts/list"))["result"]
    second = one(m.modern("prompts/list", {"cursor": again["nextCursor"]}))["result"]
    assert again["cacheScope"] == second["cacheScope"] == "private"
    # the handshake era has no cache scope: its cursors do not depend on it
    m.send({"jsonrpc": "2.0", "id": "i", "method": "initialize", "params": {"protocolVersion": "2025-11-25"}})
    legacy = m.send({"jsonrpc": "2.0", "id": "l", "method": "prompts/list"})[0]["result"]
    m.server.replace_config(simple_config(7, page_size=3, cache_scope="public"))
    page = m.send({"jsonrpc": "2.0", "id": "l2", "method": "prompts/list", "params": {"cursor": legacy["nextCursor"]}})
    assert [p["name"] for p in page[0]["result"]["prompts"]] == ["p003", "p004", "p005"]


def test_handshake_cursors_keep_the_format_they_had_before_scopes():
    # a client paging across a server upgrade keeps its place in the handshake era
    import base64
    import binascii
    from tinymcp.model.config import decode_cursor, encode_cursor
    raw = "p002".encode()
    before = base64.urlsafe_b64encode(binascii.crc32(b"tinymcp-cursor-1\0" + raw).to_bytes(4, "big") + raw)
    assert encode_cursor("p002") == before.decode().rstrip("=")
    assert decode_cursor(before.decode().rstrip("=")) == "p002"


# --- arguments and rendering ----------------------------------------------------------------

def test_get_renders_arguments_and_defaults(wire):
    wire.initialize()
    result = wire.get("p001", {"topic": "owls"})["result"]
    assert result == {"description": "prompt 1", "messages": [
        {"role": "user", "content": {"type": "text", "text": "Tell me about owls in a plain tone"}}]}


def test_get_lists_every_missing_required_argument():
    wire = Wire({"prompts": [{"name": "p", "arguments": [
        {"name": "a", "required": True}, {"name": "b", "required": True}, {"name": "c"}],
        "messages": [{"role": "user", "text": "{a}{b}{c}"}]}]})
    wire.initialize()
    assert wire.get("p", {"c": "1"})["error"] == {"code": -32602, "message": (
        "Invalid arguments for prompt 'p': missing required arguments: 'a', 'b'")}


def test_get_names_undeclared_arguments(wire):
    wire.initialize()
    assert wire.get("p000", {"topic": "t", "zzz": "1", "yyy": "2"})["error"]["message"] == (
        "Invalid arguments for prompt 'p000': undeclared arguments: 'zzz', 'yyy' (it takes 'topic', 'tone')")
    # (what a client, or a model reading the error, needs to try again: the names it takes)
    bare = Wire({"prompts": [{"name": "bare", "messages": [{"role": "user", "text": "hi"}]}]})
    bare.initialize()
    assert bare.get("bare", {"x": "1"})["error"]["message"] == (
        "Invalid arguments for prompt 'bare': undeclared arguments: 'x' (it takes no arguments)")
    assert wire.get("p000", {"topc": "t"})["error"]["message"] == (  # (what it takes, beside the undeclared)
        "Invalid arguments for prompt 'p000': missing required arguments: 'topic'; undeclared arguments: 'topc' "
        "(it takes 'topic', 'tone')")


@pytest.mark.parametrize("arguments", [[], "a", 3, True])
def test_get_arguments_must_be_an_object(wire, arguments):
    wire.initialize()
    assert wire.get("p000", arguments)["error"]["code"] == -32602


@pytest.mark.parametrize("value", [1, None, True, ["x"], {"x": 1}])
def test_get_argument_values_must_be_strings(wire, value):
    wire.initialize()
    error = wire.get("p000", {"topic": value})["error"]
    assert error["code"] == -32602 and "must be strings: 'topic'" in error["message"]


def test_render_callable_output_is_served():
    calls = []

    def render(arguments):
        calls.append(arguments)
        return [{"role": "assistant", "text": "got " + arguments["a"] + arguments["b"]}]

    wire = Wire({"prompts": [{"name": "r", "arguments": [{"name": "a"}, {"name": "b", "default": "B"}],
                              "render": render}]})
    wire.initialize()
    assert wire.get("r", {"a": "A"})["result"]["messages"] == [
        {"role": "assistant", "content": {"type": "text", "text": "got AB"}}]
    assert calls == [{"a": "A", "b": "B"}]


# --- completion ------------------------------------------------------------------------------

def test_empty_value_gives_the_first_100_of_250():
    wire = Wire(completion_config())
    wire.initialize()
    completion = wire.complete("word", "")["result"]["completion"]
    assert completion == {"values": WORDS[:100], "total": 250, "hasMore": True}


def test_exactly_100_values_are_all_there_is():
    wire = Wire({"prompts": [{"name": "pick", "arguments": [{"name": "word", "completions": WORDS[:100]}],
                              "messages": [{"role": "user", "text": "{word}"}]}]})
    wire.initialize()
    completion = wire.complete("word", "")["result"]["completion"]
    assert completion == {"values": WORDS[:100], "total": 100, "hasMore": False}


def test_prefix_is_case_insensitive_with_exact_case_first():
    wire = Wire(completion_config())
    wire.initialize()
    completion = wire.complete("word", "c")["result"]["completion"]
    assert completion == {"values": ["charlie", "cat", "Cobra", "Cab"], "total": 4, "hasMore": False}
    assert wire.complete("word", "B")["result"]["completion"]["values"] == ["Beta", "beta"]


def test_a_composed_and_a_decomposed_accent_match_each_other():
    # Bug: "caf\u00e9" (NFC, one code point) and "cafe\u0301" (NFD, e + combining acute)
    # look the same but did not match; both sides are now compared in NFC.
    composed, decomposed = "caf\u00e9", "cafe\u0301"
    wire = Wire(completion_config(arguments=[
        {"name": "word", "completions": [composed + " noir", decomposed + " au lait", "Caf\u00e9 cr\u00e8me",
                                         "cafe"]}], messages=[{"role": "user", "text": "{word}"}]))
    wire.initialize()
    for typed in (composed, decomposed):
        assert wire.complete("word", typed)["result"]["completion"]["values"] == [
            composed + " noir", decomposed + " au lait", "Caf\u00e9 cr\u00e8me"]  # as declared
    assert wire.complete("word", "CAFE\u0301")["result"]["completion"]["values"] == [
        composed + " noir", decomposed + " au lait", "Caf\u00e9 cr\u00e8me"]
    assert wire.complete("word", "cafe")["result"]["completion"]["values"] == ["cafe"]


def test_argument_without_completions_gives_none():
    wire = Wire(completion_config())
    wire.initialize()
    assert wire.complete("free", "x")["result"]["completion"] == {"values": [], "total": 0, "hasMore": False}


def test_callable_results_are_capped_at_100():
    wire = Wire(completion_config(arguments=[{"name": "a", "complete": lambda v, c: [str(i) for i in range(150)]}],
                                  messages=[{"role": "user", "text": "{a}"}]))
    wire.initialize()
    completion = wire.complete("a", "")["result"]["completion"]
    assert len(completion["values"]) == 100 and completion["total"] == 150 and completion["hasMore"] is True


def test_prompt_level_complete_receives_the_argument_name():
    calls = []

    def prompt_complete(argument, value, context):
        calls.append((argument, value))
        return [value + "!"]

    wire = Wire(completion_config(complete=prompt_complete))
    wire.initialize()
    assert wire.complete("free", "hi")["result"]["completion"]["values"] == ["hi!"]
    assert calls == [("free", "hi")]


def test_argument_completions_win_over_the_prompt_callable():
    wire = Wire({"prompts": [{"name": "p", "complete": lambda name, value, ctx: ["FROM_PROMPT"],
                              "arguments": [{"name": "a", "completions": ["apple", "avocado"]}, {"name": "b"}],
                              "messages": [{"role": "user", "text": "{a}{b}"}]}]})
    wire.initialize()
    assert wire.complete("a", "a", name="p")["result"]["completion"]["values"] == ["apple", "avocado"]
    assert wire.complete("b", "", name="p")["result"]["completion"]["values"] == ["FROM_PROMPT"]


@pytest.mark.parametrize("broken", [lambda v, c: 1 / 0, lambda v, c: [1, 2], lambda v, c: None,
                                    lambda v, c: "abc"])
def test_failing_complete_callable_is_internal_error(broken):
    logged = []
    wire = Wire(completion_config(arguments=[{"name": "a", "complete": broken}],
                                  messages=[{"role": "user", "text": "{a}"}]),
                log=lambda *a: logged.append(a))
    wire.initialize()
    error = wire.complete("a", "x")["error"]
    assert error["code"] == -32603 and error["message"] == "Internal error" and error["data"]["errorId"]
    assert len(logged) == 1


def test_listing_an_owned_configs_prompts_changes_none_of_its_dicts():
    """An owned config's argument dicts can be listed as they are: listing every page
    under every handshake revision, and a stateless page, leaves every dict as the file
    had it."""
    import copy
    from tinymcp.model.config import load_config
    from tinymcp.protocol.revisions import HANDSHAKE_VERSIONS
    arguments = [{"name": "a", "description": "d", "required": True}, {"name": "b", "title": "B"},
                 {"name": "c", "default": "x"}, {"name": "d", "required": False}, {"name": "e"}]
    config = {"page_size": 2, "prompts": [
        {"name": "p%d" % i, "title": "P", "description": "D", "arguments": copy.deepcopy(arguments),
         "messages": [{"role": "user", "text": "{a}{b}{c}{d}{e}"}]} for i in range(5)]}
    before = copy.deepcopy(config)
    loaded = load_config(config, owned=True)
    assert all(type(entry) is dict for entry in loaded.prompts.by_name.values())
    listed = []
    for version in HANDSHAKE_VERSIONS:
        wire = Wire(loaded)
        wire.initialize(version)
        assert len(wire.pages()) == 3
        listed.append(wire.result("prompts/list", {})["prompts"][0]["arguments"])
    wire = modern_wire(loaded)
    [reply] = wire.modern("prompts/list")
    listed.append(reply["result"]["prompts"][0]["arguments"])
    assert config == before
    # listed as the protocol has them: no default, no required false, titles where listed
    assert listed[0] == [{"name": "a", "description": "d", "required": True}, {"name": "b"}, {"name": "c"},
                         {"name": "d"}, {"name": "e"}]
    assert listed[-1][1] == {"name": "b", "title": "B"}


def test_an_optional_argument_given_blank_takes_its_default():
    seen = []
    config = {"prompts": [
        {"name": "t", "arguments": [{"name": "who", "required": True}, {"name": "tone", "default": "warm"},
                                    {"name": "extra"}],
         "messages": [{"role": "user", "text": "Greet {who} in a {tone} way.{extra}"}]},
        {"name": "r", "arguments": [{"name": "tone", "default": "warm"}],
         "render": lambda arguments: seen.append(arguments) or "x"}]}
    for wire in (Wire(config),):
        wire.initialize()
        reply = wire.get("t", {"who": "Ann", "tone": "", "extra": ""})
        assert reply["result"]["messages"][0]["content"]["text"] == "Greet Ann in a warm way."
        wire.get("r", {"tone": ""})
        assert seen == [{"tone": "warm"}]  # a Python render sees the default too


def test_a_required_argument_given_blank_is_missing_in_both_eras():
    config = {"prompts": [{"name": "t", "arguments": [{"name": "who", "required": True}],
                           "messages": [{"role": "user", "text": "Hi {who}"}]}]}
    wire = Wire(config)
    wire.initialize()
    expected = {"code": -32602, "message": "Invalid arguments for prompt 't': required arguments left blank: 'who'"}
    assert wire.get("t", {"who": ""})["error"] == expected
    [reply] = modern_wire(config).modern("prompts/get", {"name": "t", "arguments": {"who": ""}})
    assert reply["error"] == expected


# --- closed choices ---------------------------------------------------------------------------

CHOICES = {"prompts": [{"name": "pick", "arguments": [
    {"name": "tone", "choices": ["calm", "curt", "Cheerful"], "default": "calm"},
    {"name": "lang", "required": True, "choices": ["lang%02d" % i for i in range(30)]}],
    "messages": [{"role": "user", "text": "{tone} in {lang}"}]}]}


def test_choices_are_what_completion_offers():
    wire = Wire(CHOICES)
    wire.initialize()
    assert wire.complete("tone", "c")["result"]["completion"]["values"] == ["calm", "curt", "Cheerful"]
    assert wire.complete("tone", "ch")["result"]["completion"]["values"] == ["Cheerful"]
    # (when choices came, an empty completions list was taken for no list: -32603)
    empty = Wire({"prompts": [{"name": "pick", "arguments": [{"name": "a", "completions": []}],
                               "messages": [{"role": "user", "text": "{a}"}]}]})
    empty.initialize()
    assert empty.complete("a", "x")["result"]["completion"]["values"] == []


def test_a_value_outside_the_choices_is_refused_naming_a_bounded_few():
    wire = Wire(CHOICES)
    wire.initialize()
    error = wire.get("pick", {"tone": "loud", "lang": "lang01"})["error"]
    assert error["code"] == -32602
    assert error["message"] == ("Invalid arguments for prompt 'pick': 'tone' must be one of: "
                                "'calm', 'curt', 'Cheerful'")
    error = wire.get("pick", {"lang": "xx"})["error"]
    assert error["message"].endswith("'lang08', 'lang09' and 20 more")
    # an empty optional value still takes the default
    reply = wire.get("pick", {"tone": "", "lang": "lang29"})
    assert reply["result"]["messages"][0]["content"]["text"] == "calm in lang29"


def test_choices_must_be_a_non_empty_list_holding_the_default_and_alone():
    from conftest import problems, prompt
    assert problems({"prompts": [prompt(arguments=[{"name": "a", "choices": []}])]}) == [
        ("prompts[0].arguments[0].choices", "expected at least one choice")]
    assert problems({"prompts": [prompt(arguments=[{"name": "a", "choices": ["x"], "default": "y"}])]}) == [
        ("prompts[0].arguments[0].default", "expected one of the choices, got 'y'")]
    assert problems({"prompts": [prompt(arguments=[{"name": "a", "choices": ["x"], "completions": ["x"]}])]}) == [
        ("prompts[0].arguments[0]", "expected at most one of 'choices', 'completions' or 'complete'")]
    assert problems({"prompts": [prompt(arguments=[{"name": "a", "choices": [1]}])]}) == [
        ("prompts[0].arguments[0].choices[0]", "expected a string, got the number 1")]


def test_an_appended_argument_goes_after_the_text_only_when_given():
    from conftest import problems, prompt
    config = {"prompts": [
        {"name": "t", "arguments": [{"name": "more", "append": "\n\nMORE: "}],
         "messages": [{"role": "user", "text": "Base"}]},
        {"name": "img", "arguments": [{"name": "more", "append": "\n\nMORE: "}],
         "messages": [{"role": "user", "content": {"type": "image", "data": "aGk=", "mimeType": "image/png"}}]}]}
    wire = Wire(config)
    wire.initialize()
    texts = lambda name, args: [m["content"].get("text") for m in wire.get(name, args)["result"]["messages"]]  # noqa: E731
    assert texts("t", {}) == ["Base"] and texts("t", {"more": ""}) == ["Base"]
    assert texts("t", {"more": "x {y}"}) == ["Base\n\nMORE: x {y}"]
    assert texts("img", {"more": "x"}) == [None, "MORE: x"]  # (after a block: a message of its own)
    assert problems({"prompts": [prompt(arguments=[{"name": "a", "append": 1}])]}) == [
        ("prompts[0].arguments[0].append", 'expected a string, got the number 1 (in quotes it is text)')]


def test_a_render_callable_is_given_a_blank_optional_argument_without_a_default():
    wire = Wire({"prompts": [{"name": "r", "arguments": [{"name": "x"}, {"name": "y", "default": "d"}],
                              "render": lambda a: "%r" % sorted(a.items())}]})
    wire.initialize()
    [message] = wire.get("r", {"x": "", "y": ""})["result"]["messages"]
    assert message["content"]["text"] == "%r" % [("x", ""), ("y", "d")]
