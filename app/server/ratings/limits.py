"""A room's rating settings and its "minimum/maximum rating to sit", checked before a seat is taken."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Room, RoomSettings, User
from app.protocol.codes import ErrorCode
from app.ratings import display_rating
from app.server.errors import ApiError
from app.server.ratings.reading import ladder_rating
from app.server.tables.robot_levels import robot_level


async def room_settings(session: AsyncSession, room_id: int) -> RoomSettings:
    """The room's settings (the defaults, unsaved, when it never had any: rated, no limits)."""
    row = await session.get(RoomSettings, room_id)
    return row if row is not None else RoomSettings(room_id=room_id, rated=True)


async def require_rating_to_sit(session: AsyncSession, room: Room, user: User) -> None:
    """403 ``rating_out_of_range`` naming the limit and the player's rating on the room's ladder, if the
    room sets limits the rating is outside of. Robots (seated by the operator) are not held to them."""
    settings = await session.get(RoomSettings, room.id)
    if settings is not None:
        await require_rating_within(session, room, user, settings.min_rating, settings.max_rating)


async def require_rating_within(
    session: AsyncSession, room: Room, user: User, min_rating: int | None, max_rating: int | None
) -> None:
    """`require_rating_to_sit` with the room's limits already read (None: no limit); the player's rating
    is read only when there is a limit."""
    if min_rating is None and max_rating is None:
        return
    if robot_level(user.name) is not None:
        return
    # The limits read the room's own ladder: a club's ladder is what its limits are about.
    rating = display_rating((await ladder_rating(session, room.id, user.id)).mu)
    if min_rating is not None and rating < min_rating:
        raise ApiError(
            ErrorCode.RATING_OUT_OF_RANGE,
            f"this room seats players rated at least {min_rating}; your rating here is {rating}",
            "min_rating",
        )
    if max_rating is not None and rating > max_rating:
        raise ApiError(
            ErrorCode.RATING_OUT_OF_RANGE,
            f"this room seats players rated at most {max_rating}; your rating here is {rating}",
            "max_rating",
        )
