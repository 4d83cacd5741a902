"""Who may see and change a workspace file (access is enforced in the data queries).

Visibility, always inside the caller's mandate unless the scope is global:
- personal: only the owner;
- feature_instance: mandate members working in that feature instance (and the owner);
- mandate: every member of the mandate;
- global: every authenticated user of the platform (only platform admins may create such files).

Changes: the owner, when their role may write; a mandate admin may also rename, tag and delete
non-personal files of their mandate. Moving stays with the owner, as folders are per user.
"""

from __future__ import annotations

from sqlalchemy import BindParameter, ColumnElement, and_, bindparam, false, or_

from agentur.context import RequestContext
from agentur.storage.models import File
from agentur.workspace.scope_names import Scope

__all__ = [
    "Scope",
    "can_change",
    "check_scope_allowed",
    "visibility_params",
    "visible_files",
    "visible_files_bound",
]

# A caller's id, or a bind parameter standing for it
Bindable = str | BindParameter[str]


def visible_files(context: RequestContext) -> ColumnElement[bool]:
    """The SQL condition for files the caller may see. Every file query starts from it."""
    return _visibility(context.mandate_id, context.user_id, context.feature_instance_id or None)


def visible_files_bound(in_feature_instance: bool) -> ColumnElement[bool]:
    """`visible_files` with bind parameters in place of the caller's ids (values:
    `visibility_params`), for a statement built once and run for every caller."""
    return _visibility(
        bindparam("mandate_id"),
        bindparam("user_id"),
        bindparam("feature_instance_id") if in_feature_instance else None,
    )


def visibility_params(context: RequestContext) -> dict[str, str | None]:
    """The values of `visible_files_bound(bool(context.feature_instance_id))`'s parameters
    (a value the statement does not use is ignored)."""
    return {
        "mandate_id": context.mandate_id,
        "user_id": context.user_id,
        "feature_instance_id": context.feature_instance_id,
    }


def _visibility(
    mandate_id: Bindable, user_id: Bindable, feature_instance_id: Bindable | None
) -> ColumnElement[bool]:
    in_mandate = File.mandate_id == mandate_id
    instance_clause = (
        and_(
            File.scope == Scope.feature_instance.value,
            File.feature_instance_id == feature_instance_id,
        )
        if feature_instance_id is not None
        else false()
    )
    return or_(
        and_(
            in_mandate,
            or_(
                File.owner_id == user_id,
                File.scope == Scope.mandate.value,
                instance_clause,
            ),
        ),
        File.scope == Scope.global_.value,
    )


def can_change(context: RequestContext, file: File, *, owner_only: bool = False) -> bool:
    if not context.can_write:
        return False
    if file.owner_id == context.user_id and file.mandate_id == context.mandate_id:
        return True
    if owner_only:
        return False
    if file.scope == Scope.global_.value:
        return context.is_platform_admin
    return (
        context.is_mandate_admin
        and file.mandate_id == context.mandate_id
        and file.scope != Scope.personal.value
    )


def check_scope_allowed(context: RequestContext, scope: Scope) -> str | None:
    """A reason the caller may not create a file with `scope`, or None."""
    if scope is Scope.global_ and not context.is_platform_admin:
        return "only platform admins may create files with scope 'global'"
    if scope is Scope.feature_instance and not context.feature_instance_id:
        return "scope 'feature_instance' needs the X-Feature-Instance header"
    return None
