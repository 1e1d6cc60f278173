//! One timestamp type for both databases: `timestamptz` on PostgreSQL, and
//! integer microseconds since the epoch on SQLite, where text timestamps of
//! varying precision would not compare correctly.

use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::postgres::{PgArgumentBuffer, PgTypeInfo, PgValueRef};
use sqlx::sqlite::{SqliteArgumentsBuffer, SqliteTypeInfo, SqliteValueRef};
use sqlx::{Decode, Encode, Postgres, Sqlite, Type};
use time::OffsetDateTime;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct DbTime(pub OffsetDateTime);

impl From<OffsetDateTime> for DbTime {
    fn from(t: OffsetDateTime) -> Self {
        Self(t)
    }
}

impl From<DbTime> for OffsetDateTime {
    fn from(t: DbTime) -> Self {
        t.0
    }
}

impl Type<Postgres> for DbTime {
    fn type_info() -> PgTypeInfo {
        <OffsetDateTime as Type<Postgres>>::type_info()
    }
}

impl Encode<'_, Postgres> for DbTime {
    fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
        <OffsetDateTime as Encode<Postgres>>::encode_by_ref(&self.0, buf)
    }
}

impl<'r> Decode<'r, Postgres> for DbTime {
    fn decode(value: PgValueRef<'r>) -> Result<Self, BoxDynError> {
        Ok(Self(<OffsetDateTime as Decode<Postgres>>::decode(value)?))
    }
}

impl Type<Sqlite> for DbTime {
    fn type_info() -> SqliteTypeInfo {
        <i64 as Type<Sqlite>>::type_info()
    }

    fn compatible(ty: &SqliteTypeInfo) -> bool {
        <i64 as Type<Sqlite>>::compatible(ty)
    }
}

impl Encode<'_, Sqlite> for DbTime {
    fn encode_by_ref(&self, buf: &mut SqliteArgumentsBuffer) -> Result<IsNull, BoxDynError> {
        let micros = i64::try_from(self.0.unix_timestamp_nanos() / 1_000)?;
        <i64 as Encode<Sqlite>>::encode(micros, buf)
    }
}

impl<'r> Decode<'r, Sqlite> for DbTime {
    fn decode(value: SqliteValueRef<'r>) -> Result<Self, BoxDynError> {
        let micros = <i64 as Decode<Sqlite>>::decode(value)?;
        Ok(Self(OffsetDateTime::from_unix_timestamp_nanos(i128::from(micros) * 1_000)?))
    }
}
