from textkit import camel_case, snake_case


def test_snake_case():
    assert snake_case("HTTPServerError") == "http_server_error"
    assert snake_case("userId") == "user_id"
    assert snake_case("already_snake") == "already_snake"


def test_camel_case():
    assert camel_case("user_id") == "userId"
    assert camel_case("HTTP server") == "httpServer"
    assert camel_case("") == ""
