"""The import graph of `agentur` has no circles between modules and keeps the layer directions
(developers' guide: a part needing another receives it through a protocol it owns; only
agentur/runtime.py composes; domain never imports the web layer; tools never call providers).

Built with grimp, *including* imports under `TYPE_CHECKING` and inside functions: a type-only
or deferred import still couples two modules, and a circle through one turns into an ImportError
the day somebody moves the import.
"""

from __future__ import annotations

import sys

import grimp
import pytest

PACKAGE = "agentur"

# Circles that predate this test, each in a part another change is reworking; remove an entry
# when its circle is gone. Any other circle, or one of these growing, fails the test.
KNOWN_CIRCLES = (
    # AiService.embed is implemented in embed_texts, which names AiService (type only).
    frozenset({"agentur.ai.embed_texts", "agentur.ai.service"}),
    # cli.main registers the command modules, which import its helpers back.
    frozenset(
        {
            "agentur.cli.main",
            "agentur.cli.agent_commands",
            "agentur.cli.assistant_commands",
            "agentur.cli.knowledge_commands",
        }
    ),
)

DOMAIN = (
    "agent",
    "tools",
    "knowledge",
    "assistant",
    "workspace",
    "storage",
    "ai",
    "accounts",
    "workflows",
)
# Services: callers of the domain that the API and the CLI drive (the meeting assistant runs the
# agent, the gateway and the workflows for a live meeting). They never reach the web layer or
# the CLI, and no domain part reaches them.
SERVICES = ("meetings",)
# The parts agentur/runtime.py composes, and what they build on, never reach it back.
BELOW_RUNTIME = ("agent", "tools", "knowledge", "ai", "storage", "workspace", "accounts")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(PACKAGE, exclude_type_checking_imports=False, cache_dir=None)


def circles(graph: grimp.ImportGraph) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in edges[module]:
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(component)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(edges)))
    try:
        for module in sorted(edges):
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)
    return found


def describe(graph: grimp.ImportGraph, component: set[str]) -> str:
    first = min(component)
    back = min(
        (
            chain
            for other in component - {first}
            if (chain := graph.find_shortest_chain(other, first)) is not None
        ),
        key=len,
    )
    forward = graph.find_shortest_chain(first, back[0]) or (first,)
    return " -> ".join(forward + back[1:])


def test_the_circle_finder_sees_a_circle_through_a_type_only_import() -> None:
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d"):
        graph.add_module(module)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.c")
    graph.add_import(importer="pkg.c", imported="pkg.a")  # e.g. under TYPE_CHECKING
    graph.add_import(importer="pkg.d", imported="pkg.a")
    assert circles(graph) == [{"pkg.a", "pkg.b", "pkg.c"}]
    assert describe(graph, {"pkg.a", "pkg.b", "pkg.c"}) == "pkg.a -> pkg.b -> pkg.c -> pkg.a"


def test_every_part_of_the_package_is_in_the_graph(graph: grimp.ImportGraph) -> None:
    # A folder without __init__.py is a namespace package grimp would silently leave out.
    for part in DOMAIN + SERVICES + ("api", "cli"):
        assert f"{PACKAGE}.{part}" in graph.modules, part
    assert "agentur.knowledge.hooks" in graph.modules


def test_no_new_import_circles(graph: grimp.ImportGraph) -> None:
    new = [c for c in circles(graph) if not any(c <= known for known in KNOWN_CIRCLES)]
    assert not new, "import circles:\n" + "\n".join(describe(graph, c) for c in new)


@pytest.mark.parametrize("part", DOMAIN)
@pytest.mark.parametrize("web", ("api", "cli"))
def test_domain_never_reaches_the_web_layer_or_the_cli(
    graph: grimp.ImportGraph, part: str, web: str
) -> None:
    chains = graph.find_shortest_chains(f"{PACKAGE}.{part}", f"{PACKAGE}.{web}", as_packages=True)
    assert not chains, sorted(chains)


@pytest.mark.parametrize("part", SERVICES)
@pytest.mark.parametrize("web", ("api", "cli"))
def test_services_never_reach_the_web_layer_or_the_cli(
    graph: grimp.ImportGraph, part: str, web: str
) -> None:
    chains = graph.find_shortest_chains(f"{PACKAGE}.{part}", f"{PACKAGE}.{web}", as_packages=True)
    assert not chains, sorted(chains)


@pytest.mark.parametrize("part", DOMAIN)
@pytest.mark.parametrize("service", SERVICES)
def test_the_domain_never_reaches_a_service(
    graph: grimp.ImportGraph, part: str, service: str
) -> None:
    chains = graph.find_shortest_chains(
        f"{PACKAGE}.{part}", f"{PACKAGE}.{service}", as_packages=True
    )
    assert not chains, sorted(chains)


@pytest.mark.parametrize("part", BELOW_RUNTIME)
def test_only_the_runtime_composes(graph: grimp.ImportGraph, part: str) -> None:
    chains = graph.find_shortest_chains(f"{PACKAGE}.{part}", f"{PACKAGE}.runtime")
    assert not chains, sorted(chains)


def test_the_agent_and_the_knowledge_store_do_not_import_each_other(
    graph: grimp.ImportGraph,
) -> None:
    # The agent owns the hook protocols; the store meets them structurally. (The agent does
    # reach the store through the tools it runs — that is a tool's business, not a hook's.)
    assert not graph.find_shortest_chains("agentur.knowledge", "agentur.agent", as_packages=True)
    direct = graph.find_matching_direct_imports(
        import_expression="agentur.agent.** -> agentur.knowledge.**"
    )
    assert not direct, direct


def test_tools_never_call_providers_directly(graph: grimp.ImportGraph) -> None:
    direct = graph.find_matching_direct_imports(
        import_expression="agentur.tools.** -> agentur.ai.providers.**"
    )
    assert not direct, direct
