//! What a build of each engine is: the cmake options after the build
//! type, the make targets, and where the server lands in the build
//! directory.

use crate::dims::Engine;

/// One engine's build.
#[derive(Debug)]
pub struct EngineBuild {
    /// The options that decide what is compiled, after the build type.
    pub cmake_options: &'static [&'static str],
    /// What `make` builds: the server, and what bootstrapping needs.
    pub make_targets: &'static [&'static str],
    /// The server binary, relative to the build directory.
    pub server_in_build: &'static str,
    /// What one build takes in the cache, for the matrix's preflight.
    pub cache_bytes: u64,
}

const GIB: u64 = 1 << 30;

/// MariaDB: no Galera, no embedded server, no unit tests, system libraries
/// (nothing is downloaded at build time), the large optional engines
/// switched off; the server, and the two helpers that the tree's own
/// `mariadb-install-db --srcdir` uses to bootstrap a datadir. The option
/// list is part of every build key: changing it rebuilds everything.
pub const MARIADB: EngineBuild = EngineBuild {
    cmake_options: &[
        "-DWITH_WSREP=OFF",
        "-DWITH_EMBEDDED_SERVER=OFF",
        "-DWITH_UNIT_TESTS=OFF",
        "-DWITH_SSL=system",
        "-DWITH_PCRE=system",
        "-DWITH_ZLIB=system",
        "-DWITH_LIBFMT=system",
        "-DWITH_MARIABACKUP=OFF",
        "-DPLUGIN_ROCKSDB=NO",
        "-DPLUGIN_MROONGA=NO",
        "-DPLUGIN_SPIDER=NO",
        "-DPLUGIN_CONNECT=NO",
        "-DPLUGIN_TOKUDB=NO",
        "-DPLUGIN_OQGRAPH=NO",
        "-DPLUGIN_SPHINX=NO",
        "-DPLUGIN_S3=NO",
        "-DPLUGIN_COLUMNSTORE=NO",
        "-DPLUGIN_FEDERATED=NO",
        "-DPLUGIN_FEDERATEDX=NO",
        "-DPLUGIN_ARCHIVE=NO",
        "-DPLUGIN_BLACKHOLE=NO",
        "-DPLUGIN_AUTH_PAM=NO",
        "-DPLUGIN_AUTH_GSSAPI=NO",
        "-DPLUGIN_HASHICORP_KEY_MANAGEMENT=NO",
        "-DWITH_SAFEMALLOC=OFF",
    ],
    make_targets: &["mariadbd", "my_print_defaults", "resolveip"],
    server_in_build: "sql/mariadbd",
    // a 10.11 build directory is 1.6 GiB, its checkout and logs about 2.2;
    // the margin covers ccache's growth and an 11.x tree's larger build
    cache_bytes: 3 * GIB,
};

/// MySQL: the libraries it bundles under `extra/` (its default; Debian's
/// rules take the system's, which Debian 12 does not all have at the
/// versions 9.7 wants) and the system's OpenSSL; no Router, no X plugin
/// (it would listen on port 33060), no NDB (neither the cluster nor the
/// ndbcluster engine, which a full source tree links into `mysqld` unless
/// told not to: with `WITH_NDB=OFF` alone, make compiled storage/ndb's
/// 733 C++ files for the server), no unit tests, none of the
/// authentication plugins that need LDAP, Kerberos or FIDO libraries, no
/// curl (in 9.7.2 only the telemetry component and plugin use it).
/// `mysqld --initialize-insecure` bootstraps a datadir by itself, so the
/// server is the one target.
pub const MYSQL: EngineBuild = EngineBuild {
    cmake_options: &[
        "-DWITH_ROUTER=OFF",
        "-DWITH_MYSQLX=OFF",
        "-DWITH_NDB=OFF",
        "-DWITH_NDBCLUSTER_STORAGE_ENGINE=OFF",
        "-DWITH_UNIT_TESTS=OFF",
        "-DWITH_SSL=system",
        "-DWITH_AUTHENTICATION_LDAP=OFF",
        "-DWITH_AUTHENTICATION_KERBEROS=OFF",
        "-DWITH_AUTHENTICATION_WEBAUTHN=OFF",
        "-DWITH_AUTHENTICATION_CLIENT_PLUGINS=OFF",
        "-DWITH_FIDO=none",
        "-DWITH_CURL=none",
    ],
    make_targets: &["mysqld"],
    server_in_build: "runtime_output_directory/mysqld",
    // 9.7.2 measured (2026-12-07): base's build entry 3.24 GiB (checkout
    // and build directory), a patched variant's 2.79 GiB; ccache grew by
    // about 0.2 GiB. The margin covers a larger tree
    cache_bytes: 4 * GIB,
};

impl EngineBuild {
    /// The build of `engine`.
    pub fn of(engine: Engine) -> &'static EngineBuild {
        match engine {
            Engine::MariaDb => &MARIADB,
            Engine::MySql => &MYSQL,
        }
    }
}
