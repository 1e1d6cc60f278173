//! A server's header values (credentials Herald holds for the upstream), sealed
//! with the instance key and bound to their org and server row, so a ciphertext
//! copied to another row does not open.

use uuid::Uuid;

use crate::crypto::Keys;
use crate::domain::HeaderSet;
use crate::storage::Server;

/// The sealing context ties a ciphertext to its org and server row.
pub fn context(org_id: Uuid, server_id: Uuid) -> Vec<u8> {
    [org_id.as_bytes().as_slice(), server_id.as_bytes().as_slice()].concat()
}

pub fn seal(keys: &Keys, org_id: Uuid, server_id: Uuid, headers: &HeaderSet) -> Vec<u8> {
    let plain = serde_json::to_vec(headers).expect("a map of strings serializes");
    keys.seal(&context(org_id, server_id), &plain)
}

/// The header values of a server, for the upstream connection.
pub fn open(keys: &Keys, server: &Server) -> anyhow::Result<HeaderSet> {
    let plain = keys.open(&context(server.org_id, server.id), &server.headers_sealed)?;
    Ok(serde_json::from_slice(&plain)?)
}
