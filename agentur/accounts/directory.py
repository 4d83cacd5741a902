"""Creating and finding users, mandates, memberships and feature instances."""

from __future__ import annotations

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import Role
from agentur.errors import ConflictError, InvalidInputError, NotFoundError
from agentur.names import clean_name
from agentur.storage.models import FeatureInstance, Mandate, Membership, User
from agentur.storage.unique_change import unique_change


async def create_user(
    session: AsyncSession, email: str, display_name: str = "", *, is_platform_admin: bool = False
) -> User:
    email = email.strip().lower()
    if "@" not in email or len(email) > 320:
        raise InvalidInputError(f"not a valid e-mail address: {email!r}")
    conflict = f"a user with e-mail {email} exists already"
    if await _exists(session, select(User.id).where(User.email == email)):
        raise ConflictError(conflict)
    display_name = clean_name(display_name, "display name", required=False)
    user = User(email=email, display_name=display_name, is_platform_admin=is_platform_admin)
    async with unique_change(session, conflict):
        session.add(user)
    return user


async def create_mandate(session: AsyncSession, name: str) -> Mandate:
    name = clean_name(name, "the mandate's name")
    conflict = f"a mandate named {name!r} exists already"
    if await _exists(session, select(Mandate.id).where(Mandate.name == name)):
        raise ConflictError(conflict)
    mandate = Mandate(name=name)
    async with unique_change(session, conflict):
        session.add(mandate)
    return mandate


async def add_membership(
    session: AsyncSession, *, user_id: str, mandate_id: str, role: Role
) -> Membership:
    conflict = "the user is a member of that mandate already"
    existing = select(Membership.id).where(
        Membership.user_id == user_id, Membership.mandate_id == mandate_id
    )
    if await _exists(session, existing):
        raise ConflictError(conflict)
    membership = Membership(user_id=user_id, mandate_id=mandate_id, role=Role(role).value)
    async with unique_change(session, conflict):
        session.add(membership)
    return membership


async def create_feature_instance(
    session: AsyncSession, *, mandate_id: str, feature_code: str, name: str = ""
) -> FeatureInstance:
    instance = FeatureInstance(mandate_id=mandate_id, feature_code=feature_code, name=name)
    session.add(instance)
    await session.flush()
    return instance


async def find_user_by_email(session: AsyncSession, email: str) -> User:
    user = (
        await session.execute(select(User).where(User.email == email.strip().lower()))
    ).scalar_one_or_none()
    if user is None:
        raise NotFoundError(f"no user with e-mail {email}")
    return user


async def find_mandate_by_name(session: AsyncSession, name: str) -> Mandate:
    mandate = (
        await session.execute(select(Mandate).where(Mandate.name == name.strip()))
    ).scalar_one_or_none()
    if mandate is None:
        raise NotFoundError(f"no mandate named {name!r}")
    return mandate


async def find_mandate(session: AsyncSession, mandate_id: str) -> Mandate:
    mandate = await session.get(Mandate, mandate_id)
    if mandate is None:
        raise NotFoundError(f"mandate {mandate_id} not found")
    return mandate


async def feature_instance_in_mandate(
    session: AsyncSession, feature_instance_id: str, mandate_id: str
) -> FeatureInstance | None:
    instance = await session.get(FeatureInstance, feature_instance_id)
    if instance is None or instance.mandate_id != mandate_id:
        return None
    return instance


async def _exists(session: AsyncSession, query: Select[tuple[str]]) -> bool:
    """Checked before adding, so the usual conflict leaves the session usable (see
    `unique_change` for the race this cannot see)."""
    return (await session.execute(query.limit(1))).first() is not None


async def find_membership(
    session: AsyncSession, user_id: str, mandate_id: str
) -> Membership | None:
    return (
        await session.execute(
            select(Membership).where(
                Membership.user_id == user_id, Membership.mandate_id == mandate_id
            )
        )
    ).scalar_one_or_none()
