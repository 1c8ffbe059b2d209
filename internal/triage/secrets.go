package triage

import (
	"encoding/base64"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Secrets in text: what a message, a gist or an upload would leak.

var (
	criticalSecret = regexp.MustCompile(`-----BEGIN ([A-Z]+ )?PRIVATE KEY-----|` +
		`(?i:aws_secret_access_key)\s*[=:]\s*["']?[A-Za-z0-9/+]{30,}|` +
		`\b[sr]k_live_[0-9A-Za-z]{4,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}|` +
		`\bxox[abposr]-[0-9A-Za-z-]{10,}|\bglpat-[0-9A-Za-z_-]{20,}|\bnpm_[A-Za-z0-9]{36}\b|` +
		`\bAKIA[0-9A-Z]{16}\b[\s\S]{0,80}\b[A-Za-z0-9/+]{40}\b|\bsk-(proj-)?[A-Za-z0-9_-]{32,}|\bsk-ant-[A-Za-z0-9_-]{20,}`)
	sensitiveSecret = regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{35}\b|` +
		`\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.|` +
		`\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/]{3,}@[^\s/]+|` +
		`(?i)\b[A-Z0-9_]*(PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|PRIVATE_KEY)[A-Z0-9_]*\s*[=:]\s*["']?[^\s"'$<{]{6,}`)
)

// secretText returns the level of the secrets text holds, and what they
// are.
func secretText(text string) (int, string) {
	if text == "" {
		return notSecret, ""
	}
	if m := criticalSecret.FindString(text); m != "" {
		return secretCritical, "a secret (" + redact(m) + ")"
	}
	if m := sensitiveSecret.FindString(text); m != "" {
		return secretSensitive, "what looks like a credential (" + redact(m) + ")"
	}
	return notSecret, ""
}

// redact keeps the start of a secret, for messages.
func redact(s string) string {
	s = strings.Split(s, "\n")[0]
	if len(s) > 12 {
		return s[:8] + "…"
	}
	return s
}

// decodeBase64 decodes standard or URL-safe base64, padded or not.
func decodeBase64(s string) (string, bool) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return string(b), true
		}
	}
	return "", false
}

// looksLikeText reports whether s is mostly printable text.
func looksLikeText(s string) bool {
	if !utf8.ValidString(s) || s == "" {
		return false
	}
	printable := 0
	for _, r := range s {
		if r >= 0x20 && r < 0x7f || r == '\n' || r == '\t' {
			printable++
		}
	}
	return printable*10 >= utf8.RuneCountInString(s)*9
}

// Well-known packages: installing them by name is routine. A name within
// one or two typos of one of them is suspect.

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

var popularPy = set("requests", "numpy", "pandas", "scipy", "matplotlib", "seaborn", "scikit-learn", "torch",
	"torchvision", "tensorflow", "keras", "jax", "flask", "django", "fastapi", "uvicorn", "gunicorn", "pydantic",
	"sqlalchemy", "alembic", "psycopg2", "psycopg2-binary", "psycopg", "pytest", "pytest-cov", "pytest-asyncio",
	"pytest-mock", "pytest-xdist", "black", "ruff", "mypy", "flake8", "pylint", "isort", "tox", "nox", "coverage",
	"httpx", "aiohttp", "boto3", "botocore", "pyyaml", "jinja2", "click", "typer", "rich", "tqdm", "pillow",
	"lxml", "beautifulsoup4", "selenium", "playwright", "celery", "redis", "certifi", "urllib3", "setuptools",
	"wheel", "pip", "virtualenv", "poetry", "jupyter", "ipython", "notebook", "jupyterlab", "openai", "anthropic",
	"python-dotenv", "attrs", "six", "cryptography", "pyjwt", "pytz", "python-dateutil", "orjson", "ujson",
	"marshmallow", "werkzeug", "pre-commit", "build", "twine", "pip-tools", "pymysql", "mysqlclient", "protobuf",
	"grpcio", "grpcio-tools", "docker", "kubernetes", "paramiko", "fabric", "ansible", "sphinx", "mkdocs",
	"mkdocs-material", "transformers", "datasets", "langchain", "pyarrow", "polars", "networkx", "sympy",
	"opencv-python", "plotly", "streamlit", "gradio", "hypothesis", "faker", "freezegun", "responses",
	"requests-mock", "types-requests", "types-pyyaml", "setuptools-scm", "hatchling", "flit", "pdm", "uv",
	"cython", "numba", "tabulate", "colorama", "termcolor", "loguru", "structlog", "sentry-sdk", "arrow",
	"pendulum", "toml", "tomli", "packaging", "filelock", "platformdirs", "psutil", "watchdog", "websockets",
	"starlette", "tornado", "scrapy", "nltk", "spacy", "xgboost", "lightgbm", "statsmodels", "pymongo",
	"elasticsearch", "asyncpg", "aiofiles", "tenacity", "backoff", "more-itertools", "cachetools", "mock",
	"pyinstaller", "pygments", "markdown", "pyopenssl", "bcrypt", "passlib", "authlib", "python-multipart",
	"email-validator", "babel", "gevent", "greenlet", "mccabe", "pycodestyle", "pyflakes", "bandit", "safety",
	"ipykernel", "matplotlib-inline", "debugpy", "pyright", "django-rest-framework", "djangorestframework",
	"channels", "dash", "bokeh", "altair", "h5py", "tables", "openpyxl", "xlrd", "xlsxwriter", "python-docx",
	"reportlab", "pypdf", "pypdf2", "boto", "google-cloud-storage", "azure-storage-blob", "pika", "kafka-python",
	"confluent-kafka", "pyzmq", "msgpack", "cffi", "pycparser", "idna", "charset-normalizer", "chardet",
	"typing-extensions", "jsonschema", "pyparsing", "decorator", "wrapt", "zipp", "importlib-metadata")

var popularNpm = set("react", "react-dom", "next", "vue", "nuxt", "svelte", "@angular/core", "@angular/cli",
	"express", "koa", "fastify", "lodash", "underscore", "axios", "node-fetch", "typescript", "ts-node", "tsx",
	"@types/node", "@types/react", "@types/react-dom", "@types/jest", "@types/express", "eslint", "prettier",
	"jest", "vitest", "mocha", "chai", "sinon", "@testing-library/react", "@testing-library/jest-dom",
	"@testing-library/user-event", "cypress", "playwright", "@playwright/test", "webpack", "webpack-cli",
	"webpack-dev-server", "vite", "rollup", "esbuild", "parcel", "@babel/core", "@babel/preset-env",
	"@babel/preset-react", "babel-loader", "dotenv", "chalk", "commander", "yargs", "inquirer", "debug", "uuid",
	"moment", "dayjs", "date-fns", "luxon", "zod", "yup", "joi", "ajv", "mongoose", "sequelize", "prisma",
	"@prisma/client", "typeorm", "knex", "pg", "mysql2", "sqlite3", "better-sqlite3", "redis", "ioredis",
	"socket.io", "socket.io-client", "ws", "graphql", "@apollo/client", "@apollo/server", "jsonwebtoken", "bcrypt",
	"bcryptjs", "passport", "cors", "helmet", "morgan", "body-parser", "cookie-parser", "nodemon", "pm2",
	"concurrently", "cross-env", "rimraf", "husky", "lint-staged", "tailwindcss", "postcss", "autoprefixer",
	"sass", "less", "styled-components", "@emotion/react", "@emotion/styled", "redux", "react-redux",
	"@reduxjs/toolkit", "zustand", "mobx", "rxjs", "immer", "classnames", "clsx", "framer-motion", "three", "d3",
	"chart.js", "marked", "highlight.js", "prismjs", "storybook", "@storybook/react", "supertest", "nock", "msw",
	"turbo", "nx", "lerna", "semver", "glob", "minimist", "fs-extra", "yaml", "js-yaml", "xml2js", "cheerio",
	"puppeteer", "sharp", "multer", "nodemailer", "stripe", "aws-sdk", "@aws-sdk/client-s3", "firebase",
	"openai", "@anthropic-ai/sdk", "@vitejs/plugin-react", "serve", "http-server", "npm", "yarn", "pnpm",
	"node-gyp", "eslint-config-prettier", "eslint-plugin-react", "eslint-plugin-react-hooks",
	"@typescript-eslint/parser", "@typescript-eslint/eslint-plugin", "typescript-eslint", "ts-jest", "babel-jest",
	"jsdom", "happy-dom", "c8", "nyc", "tslib", "core-js", "pino", "winston", "express-validator",
	"http-proxy-middleware", "swr", "@tanstack/react-query", "react-router", "react-router-dom",
	"react-hook-form", "formik", "antd", "@mui/material", "bootstrap", "jquery", "@vitest/coverage-v8",
	"vue-router", "pinia", "vuex", "@sveltejs/kit", "astro", "gatsby", "remix", "@remix-run/react", "electron",
	"react-native", "expo", "@nestjs/core", "@nestjs/common", "class-validator", "class-transformer",
	"reflect-metadata", "got", "superagent", "ky", "qs", "query-string", "cookie", "express-session",
	"connect-redis", "bull", "bullmq", "amqplib", "kafkajs", "graphql-tag", "apollo-server", "nanoid",
	"lru-cache", "p-limit", "p-queue", "async", "bluebird", "eventemitter3", "mitt", "ramda", "rxjs-compat",
	"vitest-environment-jsdom", "@types/lodash", "@types/uuid", "@types/jsonwebtoken", "@types/bcrypt")

var popularCrates = set("serde", "serde_json", "serde_derive", "tokio", "clap", "anyhow", "thiserror", "rand",
	"regex", "log", "env_logger", "tracing", "tracing-subscriber", "reqwest", "hyper", "axum", "actix-web",
	"rocket", "warp", "tonic", "prost", "futures", "async-trait", "chrono", "time", "uuid", "itertools",
	"lazy_static", "once_cell", "rayon", "crossbeam", "parking_lot", "bytes", "byteorder", "base64", "hex",
	"sha2", "ring", "rustls", "openssl", "sqlx", "diesel", "rusqlite", "redis", "bincode", "toml", "serde_yaml",
	"csv", "criterion", "proptest", "quickcheck", "tempfile", "walkdir", "glob", "dirs", "indicatif", "colored",
	"termcolor", "structopt", "nom", "pest", "syn", "quote", "proc-macro2", "bitflags", "num", "num-traits",
	"ndarray", "image", "wasm-bindgen", "url", "mime", "http", "tower", "tower-http", "tokio-stream",
	"tokio-util", "futures-util", "insta", "mockall", "pretty_assertions", "assert_cmd", "predicates", "strum",
	"derive_more", "smallvec", "indexmap", "hashbrown", "ahash", "memchr", "libc", "nix", "cargo-watch",
	"cargo-edit", "cargo-nextest", "cargo-audit", "cargo-deny", "wasm-pack", "sccache", "ripgrep", "fd-find",
	"bat", "tokei", "just")

var popularGems = set("rails", "rake", "bundler", "rspec", "rubocop", "puma", "sinatra", "nokogiri", "pry",
	"devise", "sidekiq", "rack", "minitest", "capybara", "factory_bot", "faker", "jekyll", "cocoapods", "fastlane",
	"solargraph", "rubocop-rails", "pg", "mysql2", "sqlite3", "redis", "httparty", "faraday", "json", "thor")
