#!/usr/bin/env python3
"""A local stand-in for the parts of GitHub that an OpenBench server and client reach, so that
`scripts/openbench` runs offline with OpenBench's code unchanged.

OpenBench asks GitHub's API for a branch or commit (its sha and message), for a comparison of two
commits, and for the source as a zip (`/repos/<owner>/<repo>/zipball/<sha>`), and its client
downloads opening books as zips. Everything goes through Python `requests`, which honours
`HTTPS_PROXY` and `REQUESTS_CA_BUNDLE`. So this program is an HTTP proxy on 127.0.0.1: a
`CONNECT` to one of GitHub's host names is answered here, under TLS with a certificate for those
names signed by a throwaway authority that `--certs` makes; the requests inside are answered from
this git repository (any owner/repo names it) and from a folder of books. Any other host is
refused, so nothing leaves the machine. Plain requests to `/books/<name>.zip` are answered too.

Usage: openbench_github.py --repo DIR --books DIR --certs DIR --cache DIR --port N
"""

import argparse
import http.server
import io
import json
import os
import re
import socketserver
import ssl
import subprocess
import sys
import threading
import zipfile

GITHUB_HOSTS = ["api.github.com", "github.com", "codeload.github.com", "raw.githubusercontent.com"]


def make_certificates(folder):
    """A certificate authority and a certificate for GitHub's host names signed by it, made once
    with the openssl command; returns (authority, certificate, key) paths."""
    os.makedirs(folder, exist_ok=True)
    ca_key, ca_crt = os.path.join(folder, "ca.key"), os.path.join(folder, "ca.pem")
    key, crt = os.path.join(folder, "github.key"), os.path.join(folder, "github.pem")
    if all(os.path.exists(p) for p in (ca_key, ca_crt, key, crt)):
        return ca_crt, crt, key

    def openssl(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "3650",
            "-keyout", ca_key, "-out", ca_crt, "-subj", "/CN=Rookery local OpenBench authority",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    csr = os.path.join(folder, "github.csr")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr,
            "-subj", "/CN=api.github.com")
    ext = os.path.join(folder, "github.ext")
    with open(ext, "w") as f:
        f.write("subjectAltName=" + ",".join("DNS:" + h for h in GITHUB_HOSTS) + "\n")
        f.write("basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n")
        f.write("extendedKeyUsage=serverAuth\n")
        f.write("subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n")
    openssl("x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key, "-CAcreateserial",
            "-days", "3650", "-out", crt, "-extfile", ext)
    return ca_crt, crt, key


class Repository:
    """Answers GitHub API questions from a local git repository."""

    def __init__(self, path, cache):
        self.path, self.cache = path, cache
        self.lock = threading.Lock()
        os.makedirs(cache, exist_ok=True)

    def git(self, *args):
        out = subprocess.run(["git", "-C", self.path, *args], capture_output=True, check=False)
        return out.stdout.decode("utf-8", "replace").strip() if out.returncode == 0 else None

    def commit(self, ref):
        sha = self.git("rev-parse", "--verify", "--quiet", ref + "^{commit}")
        if not sha:
            return None
        message = self.git("log", "-1", "--format=%B", sha) or ""
        return {"sha": sha, "commit": {"message": message}}

    def zipball(self, ref):
        """The source of a commit as a zip with one top folder, as GitHub's zipball is; made
        with `git archive` once per commit and kept in the cache."""
        sha = self.git("rev-parse", "--verify", "--quiet", ref + "^{commit}")
        if not sha:
            return None
        path = os.path.join(self.cache, sha + ".zip")
        with self.lock:
            if not os.path.exists(path):
                tmp = path + ".tmp"
                subprocess.run(["git", "-C", self.path, "archive", "--format=zip",
                                "--prefix=rookery-%s/" % sha[:7], "-o", tmp, sha], check=True)
                os.replace(tmp, path)
        return path


def book_zip(books, name):
    """A zip holding one book from the books folder, as OpenBench's book archives are."""
    path = os.path.join(books, os.path.basename(name))
    if not os.path.isfile(path):
        return None
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(path, os.path.basename(name))
    return buf.getvalue()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    tls_host = None  # set on the handler class that serves the inside of a CONNECT

    def log_message(self, fmt, *args):
        sys.stderr.write("[local-github] %s %s\n" % (self.tls_host or "-", fmt % args))

    def send_body(self, code, body, kind="application/json"):
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_json(self, code, data):
        self.send_body(code, json.dumps(data).encode())

    def send_file(self, path, kind="application/zip"):
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(os.path.getsize(path)))
        self.end_headers()
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                self.wfile.write(chunk)

    def do_CONNECT(self):
        host = self.path.split(":")[0]
        if host not in GITHUB_HOSTS:
            self.send_body(403, b"only GitHub's host names are answered here\n", "text/plain")
            return
        self.send_response(200, "Connection established")
        self.end_headers()
        tls = self.server.tls_context.wrap_socket(self.connection, server_side=True)
        inner = type("TLSHandler", (Handler,), {"tls_host": host})
        inner(tls, self.client_address, self.server)
        self.close_connection = True

    def do_GET(self):
        cfg = self.server
        path = self.path.split("?")[0]
        if self.tls_host is None and path.startswith("http"):
            self.send_body(403, b"plain HTTP proxying is not offered\n", "text/plain")
            return
        if m := re.fullmatch(r"/books/(.+)\.zip", path):
            if data := book_zip(cfg.books, m.group(1)):
                return self.send_body(200, data, "application/zip")
        if m := re.fullmatch(r"/repos/[^/]+/[^/]+/branches/(.+)", path):
            if data := cfg.repo.commit(m.group(1)):
                return self.send_json(200, {"name": m.group(1), "commit": data})
        if m := re.fullmatch(r"/repos/[^/]+/[^/]+/commits/(.+)", path):
            if data := cfg.repo.commit(m.group(1)):
                return self.send_json(200, data)
        if m := re.fullmatch(r"/repos/[^/]+/[^/]+/compare/([^.]+)\.\.\.(.+)", path):
            ahead = cfg.repo.git("rev-list", "--count", "%s..%s" % (m.group(1), m.group(2)))
            behind = cfg.repo.git("rev-list", "--count", "%s..%s" % (m.group(2), m.group(1)))
            if ahead is not None and behind is not None:
                return self.send_json(200, {"ahead_by": int(ahead), "behind_by": int(behind)})
        if m := re.fullmatch(r"/repos/[^/]+/[^/]+/zipball/(.+)", path):
            if zipped := cfg.repo.zipball(m.group(1)):
                return self.send_file(zipped)
        self.send_json(404, {"message": "Not Found"})

    do_HEAD = do_GET


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repo", required=True, help="git repository answered for any owner/repo")
    p.add_argument("--books", required=True, help="folder of opening books served as zips")
    p.add_argument("--certs", required=True, help="folder for the authority and certificate")
    p.add_argument("--cache", required=True, help="folder for the source zips, one per commit")
    p.add_argument("--port", type=int, required=True)
    args = p.parse_args()

    _, crt, key = make_certificates(args.certs)
    server = Server(("127.0.0.1", args.port), Handler)
    server.tls_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.tls_context.load_cert_chain(crt, key)
    server.repo = Repository(args.repo, args.cache)
    server.books = args.books
    print("local GitHub stand-in on 127.0.0.1:%d" % args.port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
