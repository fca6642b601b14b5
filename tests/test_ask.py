"""Asking for missing arguments (2026-07-28 MRTR, opt-in): an input_required result with one
elicitation form, the retry's answers merged; -32602 as before wherever a client cannot
be asked."""

import pytest

from conftest import META_CAPS, Wire, meta, modern_wire, problems, prompt

ASKS = {"ask_for_missing": True, "prompts": [
    {"name": "review", "arguments": [
        {"name": "code", "required": True, "title": "Code", "description": "The code to review"},
        {"name": "lang", "required": True, "choices": ["py", "js"]},
        {"name": "focus", "default": "bugs"}],
     "messages": [{"role": "user", "text": "Review {lang} code for {focus}: {code}"}]},
    {"name": "quiet", "ask_for_missing": False, "arguments": [{"name": "x", "required": True}],
     "messages": [{"role": "user", "text": "{x}"}]}]}
ELICIT = {META_CAPS: {"elicitation": {}}}


def get(wire, arguments=None, responses=None, caps=ELICIT, name="review"):
    params = {"name": name, "_meta": meta(**caps)}
    if arguments is not None:
        params["arguments"] = arguments
    if responses is not None:
        params["inputResponses"] = responses
    [reply] = wire.modern("prompts/get", params)
    return reply


def test_a_missing_argument_is_asked_for_with_one_form_and_the_retry_renders():
    wire = modern_wire(ASKS)  # (every reply checked against the 2026-07-28 schema)
    asked = get(wire, {"code": "x = 1"})["result"]
    assert asked["resultType"] == "input_required" and "requestState" not in asked
    [(key, request)] = asked["inputRequests"].items()
    assert request["method"] == "elicitation/create" and request["params"]["mode"] == "form"
    schema = request["params"]["requestedSchema"]
    assert schema == {"type": "object", "required": ["lang"], "properties": {
        "lang": {"type": "string", "title": "lang", "enum": ["py", "js"]}}}
    done = get(wire, {"code": "x = 1"}, {key: {"action": "accept", "content": {"lang": "py"}}})["result"]
    assert done["resultType"] == "complete"
    assert done["messages"][0]["content"]["text"] == "Review py code for bugs: x = 1"


def test_a_retry_still_missing_is_asked_again_and_a_decline_is_refused_as_before():
    wire = modern_wire(ASKS)
    key = next(iter(get(wire)["result"]["inputRequests"]))
    again = get(wire, {}, {key: {"action": "accept", "content": {"code": "c"}}, "other": {}})["result"]
    assert again["resultType"] == "input_required"
    assert again["inputRequests"][key]["params"]["requestedSchema"]["required"] == ["lang"]
    declined = get(wire, {}, {key: {"action": "decline"}})
    assert declined["error"]["code"] == -32602
    bad = get(wire, {}, {key: {"action": "accept", "content": {"lang": "rust", "code": "c"}}})
    assert bad["error"]["code"] == -32602 and "must be one of" in bad["error"]["message"]


@pytest.mark.parametrize("arguments, says", [
    ({"zz": "1"}, "zz"),  # (undeclared)
    ({"lang": "rust"}, "review"),  # (not a choice: -32602 for what it lacks, as without asking)
    ({"lang": 5}, "lang"),
])
def test_arguments_given_wrongly_are_refused_before_anything_is_asked(arguments, says):
    # (review: a wrong argument beside a missing one was asked about, and refused only on the retry)
    reply = get(modern_wire(ASKS), arguments)
    assert reply["error"]["code"] == -32602 and says in reply["error"]["message"]


def test_an_answer_accepted_with_no_form_is_asked_again():
    # (mrtr "Error Handling": information still missing SHOULD be asked for again; it was taken
    # for a decline, -32602)
    wire = modern_wire(ASKS)
    key = next(iter(get(wire, {"code": "c"})["result"]["inputRequests"]))
    for answer in ({"action": "accept"}, {"action": "accept", "content": None}):
        again = get(wire, {"code": "c"}, {key: answer})["result"]
        assert again["resultType"] == "input_required"
        assert again["inputRequests"][key]["params"]["requestedSchema"]["required"] == ["lang"]


@pytest.mark.parametrize("answer", [{"action": "accept", "content": "zz"}, {"action": "bogus"}, {},
                                    {"action": "decline", "content": ["x"]}, {"action": "accept", "content": []}])
def test_an_answer_that_is_no_elicitation_result_is_an_error_naming_it(answer):
    # (mrtr "Error Handling": a malformed response SHOULD be an error; content "zz" was asked again,
    # a wrong or missing action taken for a decline, told as missing arguments)
    wire = modern_wire(ASKS)
    key = next(iter(get(wire, {"code": "c"})["result"]["inputRequests"]))
    error = get(wire, {"code": "c"}, {key: answer})["error"]
    assert error["code"] == -32602 and error["message"].startswith("Invalid params: inputResponses[%s] must be" % key)


def test_only_string_answers_for_arguments_still_missing_are_taken_and_no_state_is_trusted():
    wire = modern_wire(ASKS)
    key = next(iter(get(wire, {"code": "x = 1"})["result"]["inputRequests"]))
    forged = {"name": "review", "arguments": {"code": "x = 1"}, "requestState": "forged", "_meta": meta(**ELICIT),
              "inputResponses": {key: {"action": "accept", "content": {"lang": 5, "zzz": "q", "code": "evil"}}}}
    [again] = wire.modern("prompts/get", forged)
    assert again["result"]["resultType"] == "input_required"  # (lang, given as a number: still missing)
    assert list(again["result"]["inputRequests"][key]["params"]["requestedSchema"]["properties"]) == ["lang"]
    forged["inputResponses"][key]["content"]["lang"] = "py"
    [done] = wire.modern("prompts/get", forged)
    assert done["result"]["messages"][0]["content"]["text"] == "Review py code for bugs: x = 1"
    forged["requestState"] = 5
    [bad] = wire.modern("prompts/get", forged)
    assert bad["error"]["code"] == -32602 and "requestState" in bad["error"]["message"]


@pytest.mark.parametrize("caps", [{META_CAPS: {}}, {META_CAPS: {"elicitation": {"url": {}}}},
                                  {META_CAPS: {"sampling": {}}}])
def test_a_client_that_cannot_elicit_a_form_gets_32602_as_before(caps):
    assert get(modern_wire(ASKS), {}, caps=caps)["error"]["code"] == -32602


def test_a_prompts_own_value_wins_and_the_handshake_era_is_never_asked():
    wire = modern_wire(ASKS)
    assert get(wire, name="quiet")["error"]["code"] == -32602
    config = dict(ASKS, ask_for_missing=False)
    config["prompts"] = [dict(ASKS["prompts"][0], ask_for_missing=True)]
    assert get(modern_wire(config))["result"]["resultType"] == "input_required"
    legacy = Wire(ASKS)
    legacy.initialize()
    assert legacy.error("prompts/get", {"name": "review"})["code"] == -32602


def test_ask_for_missing_is_a_boolean():
    assert problems({"prompts": [prompt(ask_for_missing=1)], "ask_for_missing": "yes"}) == [
        ("ask_for_missing", "expected true or false, got the string 'yes'"),
        ("prompts[0].ask_for_missing", "expected true or false, got the number 1")]
