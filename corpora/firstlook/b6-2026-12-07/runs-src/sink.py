"""Tiny metrics sidecar: accepts TCP connections on HOST:PORT and discards lines."""
import socket, sys, threading
host, port = sys.argv[1], int(sys.argv[2])
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((host, port)); s.listen(8)
def serve(c):
    while c.recv(65536):
        pass
while True:
    c, _ = s.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
