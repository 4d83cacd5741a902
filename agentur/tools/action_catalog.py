"""The typed action catalog: an action is a typed async Python function, and its tool is
derived from it — name `{method}_{action}`, description from the docstring, argument schema
from the keyword-only parameters (pydantic types, `Annotated[..., Field(...)]` for limits and
descriptions). Action tools change data: they are flagged `is_action` (left out by
`exclude_action_tools`) and never `read_only`, so the loop runs them one at a time.

A tool generated from its signature always agrees with it; what guards the schema models are
offered is a committed snapshot of every action tool's schema, compared by the catalog tests.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, create_model

from agentur.tools.tool import Tool, ToolContext

ActionFunction = Callable[..., Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class Action:
    method: str  # the feature or part the action belongs to: trustee, workflow
    function: ActionFunction
    toolbox: str

    @property
    def name(self) -> str:
        return f"{self.method}_{self.function.__name__}"


def action_arguments(function: ActionFunction) -> type[BaseModel]:
    hints = get_type_hints(function, include_extras=True)
    fields: dict[str, Any] = {}
    parameters = list(inspect.signature(function).parameters.values())
    if not parameters or parameters[0].name != "context":
        raise TypeError(f"action {function.__name__} must take `context` first")
    for parameter in parameters[1:]:
        if parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
            raise TypeError(
                f"parameter {parameter.name} of {function.__name__} is not keyword-only"
            )
        if parameter.name not in hints:
            raise TypeError(f"parameter {parameter.name} of {function.__name__} has no type")
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[parameter.name] = (hints[parameter.name], default)
    model_name = "".join(part.title() for part in function.__name__.split("_")) + "Arguments"
    return create_model(model_name, __config__=ConfigDict(extra="forbid"), **fields)


def action_tool(action: Action) -> Tool:
    arguments = action_arguments(action.function)
    description = inspect.getdoc(action.function)
    if not description:
        raise TypeError(f"action {action.name} has no docstring to describe it")

    async def handler(args: BaseModel, context: ToolContext) -> Any:
        values = {name: getattr(args, name) for name in type(args).model_fields}
        return await action.function(context, **values)

    return Tool(
        name=action.name,
        description=description,
        arguments=arguments,
        handler=handler,
        read_only=False,
        toolbox=action.toolbox,
        is_action=True,
    )
