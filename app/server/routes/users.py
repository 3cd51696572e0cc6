"""Administration of accounts: disable (revokes its tokens and closes its sockets) and enable."""

from __future__ import annotations

from fastapi import APIRouter, Path
from pydantic import BaseModel

from app.auth.users import AccountError, set_disabled
from app.server.deps import AdminUser, ContextDep, SessionDep
from app.server.errors import ApiError
from app.server.sessions import close_user

router = APIRouter(prefix="/api/admin/users", tags=["admin"])


class AccountOut(BaseModel):
    name: str
    disabled: bool
    closed_sockets: int = 0


async def _set(session: SessionDep, name: str, disabled: bool) -> int:
    try:
        user = await set_disabled(session, name, disabled)
    except AccountError as exc:
        raise ApiError(404, "not_found", str(exc), exc.field) from None
    await session.commit()
    return user.id


@router.post("/{name}/disable")
async def disable(
    admin: AdminUser, session: SessionDep, ctx: ContextDep, name: str = Path(max_length=64)
) -> AccountOut:
    if name.casefold() == admin.name.casefold():
        raise ApiError(409, "forbidden", "an admin does not disable their own account")
    user_id = await _set(session, name, True)
    return AccountOut(name=name, disabled=True, closed_sockets=close_user(ctx, user_id, "account disabled"))


@router.post("/{name}/enable")
async def enable(_admin: AdminUser, session: SessionDep, name: str = Path(max_length=64)) -> AccountOut:
    await _set(session, name, False)
    return AccountOut(name=name, disabled=False)
