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

# The layers, lowest first (README "Architecture"): a module imports only from its own layer
# or a lower one. Every part of the package is named here; a part listed before its folder
# exists (one being added in parallel) is skipped until it does.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "core",
        (
            "config",
            "context",
            "errors",
            "names",
            "setting_limits",
            "json_numbers",
            "wire_values",
            "cpu_pool",
            "detect_language",
            "observability",
            "secrets_box",
        ),
    ),
    ("storage", ("storage",)),
    (
        "building blocks",
        ("accounts", "workspace", "workflows", "features", "egress", "sandbox", "rendering"),
    ),
    ("ai gateway", ("ai",)),
    # The settings root (agentur/settings.py) names every part's settings module (those are
    # plain declarations and rank with the building blocks, `layer_of`) and the AI vendors'.
    ("settings", ("settings",)),
    ("process parts", ("runtime_parts",)),
    ("knowledge and connections", ("knowledge", "connections")),
    ("tool loop", ("tool_loop",)),
    ("tools", ("tools",)),
    ("agent", ("agent",)),
    ("composition", ("runtime",)),
    ("services", ("assistant", "meetings")),
    ("entry points", ("api", "cli", "web")),
)
LAYER_OF = {part: rank for rank, (_, parts) in enumerate(LAYERS) for part in parts}
ENTRY = LAYERS[-1][1]
# Arrows that still run upwards, each with the change that removes it. Any other fails.
KNOWN_UPWARD: frozenset[tuple[str, str]] = frozenset()

DOMAIN = tuple(part for part, rank in LAYER_OF.items() if rank < LAYER_OF["api"])
# The parts agentur/runtime.py composes, and what they build on, never reach it back.
BELOW_RUNTIME = tuple(part for part, rank in LAYER_OF.items() if rank < LAYER_OF["runtime"])


def part_of(module: str) -> str:
    return module.split(".")[1]


def is_part_settings(module: str) -> bool:
    """A part's settings module (`agentur/<part>/…/settings.py`): declarations only."""
    return module.endswith(".settings") and module != f"{PACKAGE}.settings"


def layer_of(module: str) -> int:
    if is_part_settings(module):
        return SETTINGS_MODULE_LAYER
    return LAYER_OF[part_of(module)]


# A part's settings module may import core and the building blocks, nothing of its own part
# above them, so the settings root and every part can import it.
SETTINGS_MODULE_LAYER = LAYER_OF["egress"]


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(PACKAGE, exclude_type_checking_imports=False, cache_dir=None)


@pytest.fixture(scope="module")
def graph_without_settings() -> grimp.ImportGraph:
    """The graph without the settings modules: the settings root names the web layer's
    settings (declarations the layer test keeps free of web code); what else a domain part
    reaches counts."""
    copy = grimp.build_graph(PACKAGE, exclude_type_checking_imports=False, cache_dir=None)
    for module in [m for m in copy.modules if is_part_settings(m) or m == f"{PACKAGE}.settings"]:
        copy.remove_module(module)
    return copy


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


def present(graph: grimp.ImportGraph, parts: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(part for part in parts if f"{PACKAGE}.{part}" in graph.modules)


def test_every_part_of_the_package_is_in_the_graph(graph: grimp.ImportGraph) -> None:
    # A folder without __init__.py is a namespace package grimp would silently leave out.
    for part in ("agent", "tools", "knowledge", "assistant", "ai", "storage", "api", "cli"):
        assert f"{PACKAGE}.{part}" in graph.modules, part
    assert "agentur.knowledge.hooks" in graph.modules


def test_every_part_has_a_layer(graph: grimp.ImportGraph) -> None:
    parts = {part_of(m) for m in graph.modules if m != PACKAGE}
    unplaced = sorted(parts - set(LAYER_OF))
    assert not unplaced, f"parts without a layer (add them to LAYERS and the README): {unplaced}"


def test_imports_never_run_up_a_layer(graph: grimp.ImportGraph) -> None:
    upward = set()
    for module in graph.modules:
        if module == PACKAGE:
            continue
        for target in graph.find_modules_directly_imported_by(module):
            if target == PACKAGE:
                continue
            source, destination = part_of(module), part_of(target)
            if layer_of(target) > layer_of(module):
                upward.add((source, destination, f"{module} -> {target}"))
    unknown = sorted(arrow for arrow in upward if arrow[:2] not in KNOWN_UPWARD)
    assert not unknown, "imports running up a layer:\n" + "\n".join(a[2] for a in unknown)
    stale = KNOWN_UPWARD - {arrow[:2] for arrow in upward}
    assert not stale, f"known upward arrows that are gone (remove them): {sorted(stale)}"


def test_the_layer_finder_sees_an_upward_import() -> None:
    graph = grimp.ImportGraph()
    for module in (PACKAGE, f"{PACKAGE}.storage.a", f"{PACKAGE}.api.b"):
        graph.add_module(module)
    graph.add_import(importer=f"{PACKAGE}.storage.a", imported=f"{PACKAGE}.api.b")
    assert LAYER_OF["api"] > LAYER_OF["storage"]
    with pytest.raises(AssertionError, match="storage.a -> agentur.api.b"):
        test_imports_never_run_up_a_layer(graph)


def test_no_new_import_circles(graph: grimp.ImportGraph) -> None:
    new = [c for c in circles(graph) if not any(c <= known for known in KNOWN_CIRCLES)]
    assert not new, "import circles:\n" + "\n".join(describe(graph, c) for c in new)


@pytest.mark.parametrize("part", DOMAIN)
@pytest.mark.parametrize("web", ENTRY)
def test_domain_never_reaches_the_web_layer_or_the_cli(
    graph_without_settings: grimp.ImportGraph, part: str, web: str
) -> None:
    if present(graph_without_settings, (part, web)) != (part, web):
        pytest.skip(f"{part} or {web} has no modules yet")
    chains = graph_without_settings.find_shortest_chains(
        f"{PACKAGE}.{part}", f"{PACKAGE}.{web}", as_packages=True
    )
    assert not chains, sorted(chains)


@pytest.mark.parametrize("part", BELOW_RUNTIME)
def test_only_the_runtime_composes(graph: grimp.ImportGraph, part: str) -> None:
    if not present(graph, (part,)):
        pytest.skip(f"{part} has no modules yet")
    chains = graph.find_shortest_chains(f"{PACKAGE}.{part}", f"{PACKAGE}.runtime")
    assert not chains, sorted(chains)


def test_the_agent_and_the_knowledge_store_do_not_import_each_other(
    graph: grimp.ImportGraph, graph_without_settings: grimp.ImportGraph
) -> None:
    # The agent owns the hook protocols; the store meets them structurally. (The agent does
    # reach the store through the tools it runs — that is a tool's business, not a hook's.)
    # The settings root names both parts' settings: chains through it do not count.
    assert not graph_without_settings.find_shortest_chains(
        "agentur.knowledge", "agentur.agent", as_packages=True
    )
    direct = graph.find_matching_direct_imports(
        import_expression="agentur.agent.** -> agentur.knowledge.**"
    )
    assert not direct, direct


def test_tools_never_call_providers_directly(graph: grimp.ImportGraph) -> None:
    direct = graph.find_matching_direct_imports(
        import_expression="agentur.tools.** -> agentur.ai.providers.**"
    )
    assert not direct, direct
