//! The HTTP client the OpenID Connect library talks to identity providers with:
//! Herald's own reqwest client, bounded. No redirects are followed (a token
//! endpoint that redirects is refused, never chased), every exchange has a
//! deadline, and a response body larger than [`MAX_BODY_BYTES`] is cut off
//! with an error rather than read into memory.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use futures_util::StreamExt;
use openidconnect::{AsyncHttpClient, HttpRequest, HttpResponse};

/// Discovery documents, key sets and token responses are a few kilobytes.
pub const MAX_BODY_BYTES: usize = 256 * 1024;
/// How long one exchange with a provider may take, connection included.
pub const DEADLINE: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum IdpHttpError {
    #[error("could not reach the identity provider: {0}")]
    Unreachable(String),
    #[error("the identity provider took longer than {} seconds", DEADLINE.as_secs())]
    TooSlow,
    #[error("the identity provider's response is larger than {} KiB", MAX_BODY_BYTES / 1024)]
    TooLarge,
    #[error("the request could not be made: {0}")]
    Request(String),
    #[error("{0}")]
    AddressNotAllowed(String),
}

#[derive(Clone)]
pub struct IdpClient {
    http: reqwest::Client,
    /// For providers a tenant named: every URL their metadata names is held to the egress
    /// policy, addresses written in the URL included (the resolver sees only names).
    egress: Option<crate::egress::EgressPolicy>,
}

impl IdpClient {
    /// `resolver`: the egress policy's resolver, for providers a tenant named.
    pub fn new(resolver: Option<crate::egress::Resolver>) -> Self {
        let egress = resolver.as_ref().map(|r| r.policy().clone());
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(5))
            .user_agent(concat!("Herald/", env!("CARGO_PKG_VERSION")));
        if let Some(resolver) = resolver {
            builder = builder.dns_resolver(resolver);
        }
        IdpClient { http: builder.build().expect("a reqwest client with these options builds"), egress }
    }

    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, IdpHttpError> {
        let request =
            reqwest::Request::try_from(request).map_err(|e| IdpHttpError::Request(e.to_string()))?;
        if let Some(egress) = &self.egress
            && let Err(refused) = egress.check_url(request.url())
        {
            return Err(IdpHttpError::AddressNotAllowed(format!(
                "{} {refused}",
                request.url().origin().ascii_serialization()
            )));
        }
        let exchange = async {
            let response =
                self.http.execute(request).await.map_err(|e| IdpHttpError::Unreachable(without_url(e)))?;
            let mut builder = openidconnect::http::Response::builder().status(response.status().as_u16());
            for (name, value) in response.headers() {
                builder = builder.header(name.as_str(), value.as_bytes());
            }
            let mut body = Vec::new();
            let mut stream = response.bytes_stream();
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(|e| IdpHttpError::Unreachable(without_url(e)))?;
                if body.len() + chunk.len() > MAX_BODY_BYTES {
                    return Err(IdpHttpError::TooLarge);
                }
                body.extend_from_slice(&chunk);
            }
            builder.body(body).map_err(|e| IdpHttpError::Request(e.to_string()))
        };
        tokio::time::timeout(DEADLINE, exchange).await.map_err(|_| IdpHttpError::TooSlow)?
    }
}

/// reqwest's errors name the URL, which for a token request carries nothing secret but for
/// an authorization redirect might; the kind of failure is what the person needs.
fn without_url(e: reqwest::Error) -> String {
    let e = e.without_url();
    match std::error::Error::source(&e) {
        Some(source) => format!("{e} ({source})"),
        None => e.to_string(),
    }
}

impl<'c> AsyncHttpClient<'c> for IdpClient {
    type Error = IdpHttpError;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, IdpHttpError>> + Send + 'c>>;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(self.send(request))
    }
}
