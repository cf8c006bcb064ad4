"""Tiny metrics endpoint: answers 503 to the first N POSTs, then 204. Access log on stderr."""
import sys
import http.server

FAIL = int(sys.argv[2]) if len(sys.argv) > 2 else 0
seen = 0


class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        global seen
        n = int(self.headers.get("Content-Length", 0))
        self.rfile.read(n)
        seen += 1
        if seen <= FAIL:
            self.send_response(503)
            self.end_headers()
            self.wfile.write(b"warming up")
            return
        self.send_response(204)
        self.end_headers()


http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
