//! Places two corpora written apart (`benches/recall/agent_tuning_7` and
//! `agent_tuning_8`) showed unread, each a class: a password set in SQL
//! (`WITH PASSWORD '…'`, `IDENTIFIED BY …`), a secret after a keyword in a
//! network device's configuration (`password 7 …`, `secret "$9$…"`), a YAML key under a namespace
//! (Hiera's `profile::db::password:`), a key in a brace block with more
//! settings after it (`{ user: route, password: …, timeout: 2 }`). Beside
//! them, what must stay. Each text is also streamed, cut at every byte and
//! one character at a time, and must come out as whole.
//!
//! The values are random, shaped like the real formats; none is a live
//! credential.

mod support;

use support::check;

/// Passwords given to a database in a statement.
const SQL_PASSWORDS: &[&str] = &[
    "mysql> CREATE USER 'app'@'%' IDENTIFIED BY '«BiNWxITaguPZO0l4XGV»';\n",
    "root@crdb-0:26257/defaultdb> CREATE USER IF NOT EXISTS orders WITH PASSWORD '«Walnut~gravel9793»';\n",
    "postgres=# ALTER USER app WITH PASSWORD '«Zq8Lw2Rt5YmK9»';\nALTER ROLE\n",
    "ALTER ROLE reporting PASSWORD '«Ember-zephyr8478»';\n",
    "1> CREATE LOGIN etl WITH PASSWORD = '«Xk29fLq0Wm3n!»';\n2> GO\n",
    "neo4j@system> CREATE USER etl SET PASSWORD '«X?98FtFMfiAt1O»' CHANGE NOT REQUIRED;\n",
    "SQL> CREATE USER app IDENTIFIED BY «Welcome_2024x»;\n\nUser created.\n",
    "CREATE USER metrics IDENTIFIED WITH plaintext_password BY '«qwertyuiop99»';\n",
    // Inside a JSON string (`ansible -vvv`'s module arguments).
    "\"cmd\": \"mysql -e \\\"CREATE USER 'app'@'10.%' IDENTIFIED BY '«BiNWxITaguPZO0l4XGV»';\\\"\",\n",
    // A literal of words longer than a line's usual look-back, cut anywhere
    // (the `PASSWORD '` name's own hold-back keeps it too).
    "ALTER USER app WITH PASSWORD '«Zq8Lw2Rt5Y ab cd ef gh ij kl mn op qr st uv wx yz Zq8Lw2Rt5Y ab cd ef gh ij kl mn op qr st uv wx yz Zq8Lw2Rt5Y ab cd ef gh ij kl mn op qr st uv wx yz Zq8Lw2Rt5Y ab cd ef gh ij kl mn op qr st uv wx yz Zq8Lw2Rt5Y ab cd ef gh ij kl mn op qr st uv wx yz Zq8Lw2Rt5Y ab cd ef gh ij kl mn op qr st uv wx yz Zq8Lw2Rt5Y ab cd ef gh ij kl mn op qr st uv wx yz Zq8Lw2Rt5Y ab cd ef gh ij kl mn op qr st uv wx yz Zq8Lw2Rt5Y ab cd ef gh ij kl mn op qr st uv wx yz»';\n",
    // SQL's `''` is a quote inside the literal.
    "ALTER USER app WITH PASSWORD '«it''s-Zq8Lw2Rt»';\n",
];

/// Statements that set no password, or give a hash or a parameter.
const SQL_NO_PASSWORDS: &[&str] = &[
    "ALTER USER app WITH PASSWORD :'pw';\n",
    "cur.execute(\"ALTER USER app WITH PASSWORD %s\", (pw,))\n",
    "CREATE USER x IDENTIFIED BY VALUES 'S:ABCDEF';\n",
    "CREATE USER u IDENTIFIED WITH caching_sha2_password AS '$A$005$abcdefghijkl';\n",
    "ALTER USER app WITH ENCRYPTED PASSWORD 'SCRAM-SHA-256$4096:c2FsdA==$Y2xpZW50:c2VydmVy';\n",
    "ALTER USER app WITH PASSWORD 'password';\n",
    "ALTER USER app WITH PASSWORD NULL;\n",
    "Neo4j: ALTER CURRENT USER SET PASSWORD FROM 'old' TO 'new'\n",
    // Prose; MySQL 5's hash after `BY PASSWORD`.
    "The backdoor was identified by CVE-2024-3094 scanners; the issue identified by Dependabot.\n",
    "CREATE USER 'u'@'%' IDENTIFIED BY PASSWORD '*6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9';\n",
    "-- rotate the password by hand; see the runbook\n",
];

/// Secrets in network devices' configurations, after a keyword and a blank.
const DEVICE_LINES: &[&str] = &[
    // Cisco IOS: type 7 (reversible) and a community; a hash (type 5, 9) stays.
    "username backup privilege 5 password 7 «14222C335C142939372C1F647B0054»\nenable secret 5 $1$mPFS$GaZVKi/bbZGKmmLVw2aOsL\n",
    "tacacs server ise-01\n address ipv4 192.168.74.137\n key 7 «02220D58522E5D2C637C02410E21475D0323»\n",
    "key chain OSPF-KEYS\n key 1\n  key-string 7 «11393B021038294D340D381D7A»\n",
    "snmp-server community «ravencWA8KX» RO SNMP-ACL\nsnmp-server location DUB2\n",
    "crypto isakmp key «l.?v%@8U=uo~o» address 198.51.100.27\n",
    // Junos: `$9$` is reversible.
    "set protocols bgp group EBGP neighbor 203.0.113.141 authentication-key \"«$9$6jdPCBREcreKM0BbYoJDjhSreWxdVwoZU6901EceKX7-»\"\n",
    "            10.9.193.133 secret \"«$9$gAajH.m5Q36s2oGDjmP1REyv87-V4JGQF/tuBSy4aZGqPTzn6»\"; ## SECRET-DATA\n",
    "set security ike policy IKE-POL pre-shared-key ascii-text \"«$9$/aPoA0IvWxN-bJGQ3n60O8X7Ns2oJU.fQHqQn/C0OxNdwaGP5»\"\n",
    // VyOS, FortiGate (after its prompt), HAProxy.
    "set service snmp community «lantern9hl3f» authorization 'ro'\nset vpn ipsec authentication psk DC2 secret '«QOGwg2HS2PPHD6WjjE8Ol»'\n",
    "fw-par1-a (to-sin1) # set psksecret «2vsh2.iN.P%jW»\n",
    "userlist admins\n    user bob insecure-password «wx%BA@7?VK7s»\n",
];

/// Keywords in prose and in tools' messages, and a hash after its type.
const NOT_DEVICE_LINES: &[&str] = &[
    "username lpetit privilege 15 secret 9 $9$ERX7g2zZgnNg2L$rd0s4tGqNVY.2XSqnwJ7QDT2pKVwuqNk/JvwQGbIAcf\n",
    "The secret is kept in Vault; rotate the key 7 days before expiry.\nSet the password policy for new users.\n",
    "The -----BEGIN OpenVPN Static key V1----- header starts the file.\n",
    "gpg: key D14E4C0F5D3A557E: public key \"Release Signing <security@example.org>\" imported\n",
    "untrusted comment: minisign public key 5EFC06FA304A17E7\n",
    "opendkim-testkey: checking key 'dkim2._domainkey.example.net'\n",
    // A command's verb before a secret's name; a table's DDL; prose after a
    // type-like digit.
    "kubectl get secret db-creds2 -o yaml\n$ kubectl -n prod get secret api-token7\n",
    "CREATE TABLE users (\n  id SERIAL PRIMARY KEY,\n  password VARCHAR(255) NOT NULL,\n  password char(60)\n);\n",
    "password 6 characters minimum\n",
    // BIND's key block: its name stays, its secret does not.
    "key \"xfr-waw1\" {\n    algorithm hmac-sha256;\n};\n",
];

/// Passwords on Windows' and Java's command lines, and in what they print.
const COMMAND_LINES: &[&str] = &[
    "     1227  keytool -list -v -keystore release.jks -storepass «DDMmR0Gv9GU2GjmL»\n",
    "apksigner sign --ks release.jks --ks-pass pass:«kgsUY57ebrCCyFsbCd» --ks-key-alias upload app.apk\n",
    "openssl pkcs12 -export -in a.crt -passout pass:«Zq8Lw2Rt5YmK9» -out a.p12\n",
    "cmdkey /generic:TERMSRV/rds-gw01.intra.local /user:INTRA\\svc_deploy /pass:«Copper#45926river»\n",
    "/opt/wildfly/bin/add-user.sh -a -u 'jms-user' -p '«Saffron@28782wharf»' -g 'guest,ejb'\n",
    "nuget setapikey «oy2h705hln5rgmjtsgkdgzo8m12nhciyl68c0ig3ruevsf» -Source https://api.nuget.org/v3/index.json\n",
    "wandb login --relogin «40e38c6dd90c196b084b22bb39379c13e270848c»\n",
    "    DefaultUserName    REG_SZ    kiosk\n    DefaultPassword    REG_SZ    «jzwiWw~4-Im%D_82»\n",
    "$pw = ConvertTo-SecureString '«M09ZxpvYGlAH68fu»' -AsPlainText -Force\n",
    "(ConvertTo-SecureString '«t-Q7ngO#C3S~3.OlB7»' -AsPlainText -Force)\n",
    "echo '«qA93*iv.HWza%D_T»' | openconnect --authenticate --user=mk --passwd-on-stdin vpn.example.net\n",
    "ldappasswd -x -D 'cn=admin,dc=x' -w '«qU6_sdFBWKdBDw»' -s '«Velvet@indigo1287»' 'uid=b,ou=people'\n",
];

/// What only looks like those: a port after a user's id, a password read
/// from the environment, a secure string made from ciphertext.
const NOT_COMMAND_LINES: &[&str] = &[
    "docker run -u 1000 -p 8080:80 nginx\n",
    // MySQL's `-p` then a database (it asks for the password); another
    // program's `-p`.
    "mysqldump -u root -p wordpress > wp.sql\nmysql -u root -p production\n",
    "sudo -u postgres mkdir -p /var/lib/postgresql/16/main\nsudo -u deploy mkdir -p ~/app\n",
    "openssl pkcs12 -export -in a.crt -passout env:P12_PASS -out a.p12\n",
    "$k = ConvertTo-SecureString $blob -Key $key\n",
    "    AutoAdminLogon    REG_SZ    1\n",
];

/// Keys under names that other layouts hide.
const CONFIG_KEYS: &[&str] = &[
    // Hiera: a YAML key under Puppet's namespaces (and a diff's `+`).
    "     +profile::postgres::replication_password: '«66fkgNV6Zq1wQncPO»'\n",
    "profile::app::secret_key: \"«bf93199a0ddd1f46446fc1e8f67ad7c09aac9870045312508caa5f8f70efb7f6»\"\n",
    // NATS: a block of settings on one line.
    "cluster {\n  authorization { user: route, password: «NFjy8e2ThMiM4NEMB0G», timeout: 2 }\n}\n",
];

/// Code that names a secret without holding one.
const CONFIG_NO_KEYS: &[&str] = &[
    "let token = Config::TOKEN;\nmatch kind { Kind::Password => 1, _ => 0 }\n",
    "const client = new Client({ user: dbUser, password: dbPassword, timeout: 2 });\n",
    "connect({ password: process.env.DB_PASSWORD, port: 5432 })\n",
];

/// What sits where a secret might and is none: ciphertext, digests, public
/// keys, references, settings nested in a value, a column of times.
const LOOK_ALIKES: &[&str] = &[
    // Jasypt's, DPAPI's and IIS's ciphertext, .NET's `<CipherValue>`.
    "spring.datasource.password=ENC(W2Vyj3jixKhl9UW6BAmimmyTU8iXmMRBukgscM0I6hM=)\n",
    "      <add key=\"ClearTextPassword\" value=\"AQAAANCMnd8BFdERjHoAwE/Cl+sBAAAAhA2IjnMkm8r2B2/a5acAyxD7Lq12/uP1Jy8Bof2lnJLiOvZQQd8hza\" />\n",
    "<add name=\"AesProvider\" keyContainerName=\"iisConfigurationKey\" sessionKey=\"AQIAAA5mAAAApAAAgAWzozoD1OxcoJhArBZFoclx2mqIqiEyIevTmWC2AVROYkISZD5j29TE4SpcAXIXrX\" />\n",
    "  <CipherData>\n    <CipherValue>XW0D8a3+mZwTexPClaSDe1Tb/1/70dE5RdEyS86exyjo9uM87xbZAaLEMElmgRbr</CipherValue>\n  </CipherData>\n",
    // Tomcat's salted digest; a payment's HMAC in a log.
    "<user username=\"admin\" password=\"f33d0a94b27751f1379d9dd3804af1af$1000$82fda52ec107797b1849dfa51e0e38541edb92071a293b6db43e1f95517ad6c0\" roles=\"manager-gui\"/>\n",
    "INFO verify razorpay_order_id=order_O8Blg2gfEwtvnY razorpay_signature=0ca759c0b5d62826dcb84fa2b29f4988314ea92a1c13e4a1b75c257e59ac8d28 valid=true\n",
    // Ably's token request `mac`; Adyen's client key, public by design.
    "{\n  \"nonce\": \"2556020293899308\",\n  \"mac\": \"TPqNR/7FLg7ftq2bquRNULgUXscChyka+PAoojmQH0A=\"\n}\n",
    "  clientKey: 'live_4JEHXD0HU24XLHR02DCZZGG22T1AY5DJ',\n",
    // SSH public keys under names that end like a key's.
    "<authorizedkeys>c3NoLWVkMjU1MTkgQUFBQUMzTnphQzFsWkRJMU5URTVBQUFBSU15cXUvRG1ucWd5ZHN4RGZabHF0dVMwRTZYRlQ0TXpmZ0c2NXlKc3pjZVIgcndpbGxpYW1zQHNyZS1sYXB0b3A=</authorizedkeys>\n",
    "sshkeys: ssh-ed25519%20AAAAC3NzaC1lZDI1NTE5AAAAIIqGnbsSQeUoFG80yC7dGJLzHe14%2B3Hcam6Bv%2FzeIXiy%20ncarter%40ns1%0A\n",
    // A setting inside a value, read by its own name; a store's path.
    "smbios1: uuid=edd44604-f7ec-49bf-ba99-2368a35bfa06\nnamed_attribute: log_ident=R1g6w1yXDRkyxJ\n",
    "api_token: \"{{ lookup('community.hashi_vault.hashi_vault', 'secret=kv/data/netops:token') }}\"\n",
    // A column of times beside secrets' names (in Claude Code's frame); a
    // shortened key.
    "  ⎿  Key                  Last Updated Timestamp\n     snowflake-password   1747827019349\n     openai-api-key       1739932160434\n",
    "| key_id | truncated_key |\n|--------|---------------|\n| 4      | 190dea5       |\n",
];

#[test]
fn secrets_in_device_configurations_are_masked() {
    check(DEVICE_LINES);
}

#[test]
fn keywords_in_prose_and_messages_stay() {
    check(NOT_DEVICE_LINES);
}

#[test]
fn passwords_on_command_lines_are_masked() {
    check(COMMAND_LINES);
}

#[test]
fn command_lines_without_passwords_stay() {
    check(NOT_COMMAND_LINES);
}

#[test]
fn look_alikes_stay() {
    check(LOOK_ALIKES);
}

#[test]
fn passwords_set_in_sql_are_masked() {
    check(SQL_PASSWORDS);
}

#[test]
fn sql_that_sets_no_password_stays() {
    check(SQL_NO_PASSWORDS);
}

#[test]
fn keys_under_namespaced_names_and_in_blocks_are_masked() {
    check(CONFIG_KEYS);
}

#[test]
fn names_in_code_stay() {
    check(CONFIG_NO_KEYS);
}
