"""Protocol revisions: the one table of what each revision has.

Every "does this revision have X" question in the package asks a ``Revision`` from this
table; no other module compares, orders or lists version strings. Adding a revision is
adding a row here (and whatever new behaviour its features switch on elsewhere).

Eras (2026-07-28 versioning "Terminology"): the handshake revisions are negotiated once
per connection by ``initialize``; the stateless ones are named in every request's
``params._meta``.
"""

from ..model.config import LOG_LEVELS

#: log level -> its rank in LOG_LEVELS (a threshold compares ranks)
SEVERITY = {name: i for i, name in enumerate(LOG_LEVELS)}


class Revision:
    """What one protocol revision defines: its features are booleans."""

    __slots__ = ("version", "stateless", "batches", "audio", "completions_capability",
                 "progress_message", "titles", "meta", "resource_link", "last_modified",
                 "completion_context", "icons", "content_as_is")

    def __init__(self, version, **features):
        self.version = version
        for name in self.__slots__[1:-1]:
            setattr(self, name, features.pop(name, False))
        if features:
            raise TypeError("unknown revision features: %s" % ", ".join(sorted(features)))
        #: every content block is sent as stored (nothing to convert or leave out)
        self.content_as_is = all((self.audio, self.resource_link, self.last_modified, self.meta, self.icons))

    def __repr__(self):
        return "Revision(%r)" % self.version


def _table():
    """The rows, oldest first; each revision has what the one before it had unless its row
    says otherwise (the changelog of each revision names what arrived)."""
    rows = [
        ("2024-11-05", {}),
        # JSON-RPC batching, AudioContent, ServerCapabilities.completions, progress message
        ("2025-03-26", {"batches": True, "audio": True, "completions_capability": True,
                        "progress_message": True}),
        # batching removed; title and _meta (BaseMetadata), ResourceLink,
        # annotations.lastModified, completion/complete context
        ("2025-06-18", {"batches": False, "titles": True, "meta": True, "resource_link": True,
                        "last_modified": True, "completion_context": True}),
        # icons on Prompt and ResourceLink
        ("2025-11-25", {"icons": True}),
        # the stateless era: server/discover, per-request _meta, subscriptions/listen
        ("2026-07-28", {"stateless": True}),
    ]
    table, features = {}, {}
    for version, changes in rows:
        features.update(changes)
        table[version] = Revision(version, **features)
    return table


#: version string -> Revision, oldest first.
REVISIONS = _table()
HANDSHAKE_VERSIONS = tuple(v for v, r in REVISIONS.items() if not r.stateless)
STATELESS_VERSIONS = tuple(v for v, r in REVISIONS.items() if r.stateless)
ALL_VERSIONS = HANDSHAKE_VERSIONS + STATELESS_VERSIONS
LATEST_HANDSHAKE = REVISIONS[HANDSHAKE_VERSIONS[-1]]
LATEST_STATELESS = REVISIONS[STATELESS_VERSIONS[-1]]
#: the revisions that allow JSON-RPC batches (for messages)
BATCH_VERSIONS = tuple(v for v, r in REVISIONS.items() if r.batches)


def handshake(requested):
    """The revision to answer an ``initialize`` asking for ``requested`` with.

    2025-11-25 lifecycle "Version Negotiation" (all four handshake revisions alike): if
    the server supports the requested version it MUST respond with the same version;
    otherwise with another it supports (SHOULD be its latest).
    """
    return REVISIONS[requested] if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE


def stateless(version):
    """The stateless revision named ``version``, or None when we do not serve it."""
    return REVISIONS[version] if version in STATELESS_VERSIONS else None
