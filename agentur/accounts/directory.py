"""Creating and finding users, mandates, memberships and feature instances."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import Role
from agentur.errors import ConflictError, InvalidInputError, NotFoundError
from agentur.storage.models import FeatureInstance, Mandate, Membership, User


async def create_user(
    session: AsyncSession, email: str, display_name: str = "", *, is_platform_admin: bool = False
) -> User:
    email = email.strip().lower()
    if "@" not in email or len(email) > 320:
        raise InvalidInputError(f"not a valid e-mail address: {email!r}")
    user = User(email=email, display_name=display_name, is_platform_admin=is_platform_admin)
    session.add(user)
    await _flush_unique(session, f"a user with e-mail {email} exists already")
    return user


async def create_mandate(session: AsyncSession, name: str) -> Mandate:
    name = name.strip()
    if not name:
        raise InvalidInputError("a mandate needs a name")
    mandate = Mandate(name=name)
    session.add(mandate)
    await _flush_unique(session, f"a mandate named {name!r} exists already")
    return mandate


async def add_membership(
    session: AsyncSession, *, user_id: str, mandate_id: str, role: Role
) -> Membership:
    membership = Membership(user_id=user_id, mandate_id=mandate_id, role=Role(role).value)
    session.add(membership)
    await _flush_unique(session, "the user is a member of that mandate already")
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


async def feature_instance_in_mandate(
    session: AsyncSession, feature_instance_id: str, mandate_id: str
) -> FeatureInstance | None:
    instance = await session.get(FeatureInstance, feature_instance_id)
    if instance is None or instance.mandate_id != mandate_id:
        return None
    return instance


async def _flush_unique(session: AsyncSession, conflict_message: str) -> None:
    try:
        async with session.begin_nested():
            await session.flush()
    except IntegrityError as error:
        raise ConflictError(conflict_message) from error
