"""The server's typed refusals: what a caller is told, with the HTTP status it maps to."""

from __future__ import annotations


class ApiError(Exception):
    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        field: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers


class TableElsewhere(ApiError):
    def __init__(self, table_id: int) -> None:
        super().__init__(
            503,
            "table_elsewhere",
            f"table {table_id} is run by another worker; try again",
            headers={"Retry-After": "1"},
        )
