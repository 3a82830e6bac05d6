//! A connection's bytes on their way out: the errors hyper answers by itself (a request that
//! is not HTTP, a request line or headers too long for its buffer) are written as JSON like
//! every other error of the API.
//!
//! hyper answers a request it cannot parse with a bare status line and an empty body, and
//! then closes the connection; it offers no hook to give that answer a body. So the socket is
//! wrapped: a write that is exactly such an answer (a 4xx or 5xx head, `content-length: 0`,
//! no content type, nothing after it) is replaced by the same status with a JSON body. Every
//! answer of the API itself carries `content-type: application/json`, so none is touched.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A socket whose bare HTTP error answers are given JSON bodies.
pub struct JsonErrors<T> {
    inner: T,
    /// A rewritten answer still to be written, and how much of it has been.
    pending: Vec<u8>,
    sent: usize,
}

impl<T> JsonErrors<T> {
    pub fn new(inner: T) -> Self {
        JsonErrors { inner, pending: Vec::new(), sent: 0 }
    }
}

/// What a bare error answer means, said to a client of the API.
fn message(status: u16) -> &'static str {
    match status {
        400 => "the request is not valid HTTP/1.1",
        408 => "the request's headers did not arrive in time",
        413 => "the request is too large",
        414 => "the request line is longer than this server reads",
        431 => "the request's headers are larger than this server reads",
        505 => "only HTTP/1.0 and HTTP/1.1 are served",
        _ => "the request could not be read",
    }
}

/// `head` with a JSON body, if it is a bare error answer.
fn rewrite(head: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(head).ok()?;
    let rest = text.strip_prefix("HTTP/1.1 ").or_else(|| text.strip_prefix("HTTP/1.0 "))?;
    let status: u16 = rest.get(..3)?.parse().ok()?;
    let lower = text.to_ascii_lowercase();
    let bare = (400..600).contains(&status)
        && lower.ends_with("\r\n\r\n")
        && lower.matches("\r\n\r\n").count() == 1
        && lower.contains("\r\ncontent-length: 0\r\n")
        && !lower.contains("\r\ncontent-type:");
    if !bare {
        return None;
    }
    let line = text.split("\r\n").next()?;
    let body = serde_json::json!({ "error": message(status) }).to_string();
    Some(
        format!(
            "{line}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

impl<T: AsyncWrite + Unpin> JsonErrors<T> {
    /// Write what is pending.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.sent < self.pending.len() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.sent..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.sent += n;
        }
        self.pending.clear();
        self.sent = 0;
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for JsonErrors<T> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for JsonErrors<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        ready!(self.drain(cx))?;
        if let Some(answer) = rewrite(buf) {
            self.pending = answer;
            // The rewritten answer stands for all of `buf`; what is not written now is
            // written before anything else, and on flush or shutdown.
            if let Poll::Ready(Err(e)) = self.drain(cx) {
                return Poll::Ready(Err(e));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    /// One buffer at a time, so that hyper hands over an answer's head whole.
    fn is_write_vectored(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::rewrite;

    #[test]
    fn a_bare_error_is_given_a_json_body_and_nothing_else_is_touched() {
        let bare = b"HTTP/1.1 414 URI Too Long\r\nconnection: close\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let out = String::from_utf8(rewrite(bare).unwrap()).unwrap();
        assert!(out.starts_with("HTTP/1.1 414 URI Too Long\r\ncontent-type: application/json\r\n"));
        let body = out.split_once("\r\n\r\n").unwrap().1;
        let len: usize = out.split("content-length: ").nth(1).unwrap().split("\r\n").next().unwrap().parse().unwrap();
        assert_eq!(len, body.len());
        assert!(serde_json::from_str::<serde_json::Value>(body).unwrap()["error"].is_string());
        for keep in [
            &b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"[..],
            b"HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n\r\n{}",
            b"{\"a\": 1}",
        ] {
            assert!(rewrite(keep).is_none(), "{}", String::from_utf8_lossy(keep));
        }
    }
}
