package verify

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/secure-systems-lab/go-securesystemslib/encrypted"
)

// PEM block types. The private key is cosign's format: a PKCS#8 key
// encrypted with scrypt and NaCl secretbox
// (go-securesystemslib/encrypted), so cosign can sign with a skillpm key
// and the other way round.
const (
	PEMPrivateKey       = "ENCRYPTED SIGSTORE PRIVATE KEY"
	pemCosignPrivateKey = "ENCRYPTED COSIGN PRIVATE KEY" // cosign before v2.2
	PEMPublicKey        = "PUBLIC KEY"
)

// ErrBadPassphrase is returned when a private key does not decrypt.
var ErrBadPassphrase = errors.New("wrong passphrase for the private key")

// GenerateKey makes an ECDSA P-256 key pair and returns the private key
// encrypted with passphrase and the public key, both PEM.
func GenerateKey(passphrase []byte) (privatePEM, publicPEM []byte, err error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, nil, err
	}
	box, err := encrypted.Encrypt(der, passphrase)
	if err != nil {
		return nil, nil, fmt.Errorf("encrypt the private key: %w", err)
	}
	pub, err := MarshalPublicKey(k.Public())
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: PEMPrivateKey, Bytes: box}), pub, nil
}

// MarshalPublicKey writes a public key as a PKIX "PUBLIC KEY" PEM block.
func MarshalPublicKey(pub crypto.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: PEMPublicKey, Bytes: der}), nil
}

// ParsePublicKey reads a PKIX "PUBLIC KEY" PEM block (ECDSA P-256).
func ParsePublicKey(data []byte) (*ecdsa.PublicKey, error) {
	b, _ := pem.Decode(data)
	if b == nil || b.Type != PEMPublicKey {
		return nil, errors.New("not a PEM \"PUBLIC KEY\" block")
	}
	k, err := x509.ParsePKIXPublicKey(b.Bytes)
	if err != nil {
		return nil, err
	}
	ec, ok := k.(*ecdsa.PublicKey)
	if !ok || ec.Curve != elliptic.P256() {
		return nil, fmt.Errorf("public key is %T; skillpm keys are ECDSA P-256", k)
	}
	return ec, nil
}

// KeyHint is the hint a bundle carries for a public key: the base64
// SHA-256 of its PKIX encoding, as sigstore-go writes it.
func KeyHint(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(der)
	return base64.StdEncoding.EncodeToString(sum[:]), nil
}

// Keypair is a long-lived ECDSA P-256 signing key (the sigstore backend
// signs with it: SignerOptions).
type Keypair struct {
	key  *ecdsa.PrivateKey
	hint []byte
}

// LoadPrivateKey decrypts a PEM private key written by GenerateKey (or
// cosign generate-key-pair).
func LoadPrivateKey(data, passphrase []byte) (*Keypair, error) {
	b, _ := pem.Decode(data)
	if b == nil || (b.Type != PEMPrivateKey && b.Type != pemCosignPrivateKey) {
		return nil, fmt.Errorf("not a PEM %q block", PEMPrivateKey)
	}
	der, err := encrypted.Decrypt(b.Bytes, passphrase)
	if err != nil {
		return nil, ErrBadPassphrase
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("parse the private key: %w", err)
	}
	ec, ok := k.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("private key is %T; skillpm signs with ECDSA P-256", k)
	}
	return NewKeypair(ec)
}

// NewKeypair wraps an ECDSA P-256 private key.
func NewKeypair(k *ecdsa.PrivateKey) (*Keypair, error) {
	if k.Curve != elliptic.P256() {
		return nil, errors.New("skillpm signs with ECDSA P-256 keys")
	}
	h, err := KeyHint(k.Public())
	if err != nil {
		return nil, err
	}
	return &Keypair{key: k, hint: []byte(h)}, nil
}

// GetHint returns the public key's hint (see KeyHint).
func (k *Keypair) GetHint() []byte { return k.hint }

// GetKeyAlgorithm is "ECDSA".
func (k *Keypair) GetKeyAlgorithm() string { return "ECDSA" }

// GetPublicKey returns the public key.
func (k *Keypair) GetPublicKey() crypto.PublicKey { return k.key.Public() }

// GetPublicKeyPem returns the public key as PEM.
func (k *Keypair) GetPublicKeyPem() (string, error) {
	b, err := MarshalPublicKey(k.key.Public())
	return string(b), err
}

// SignData signs the SHA-256 of data and returns the signature and the
// digest signed.
func (k *Keypair) SignData(_ context.Context, data []byte) ([]byte, []byte, error) {
	sum := sha256.Sum256(data)
	sig, err := ecdsa.SignASN1(rand.Reader, k.key, sum[:])
	if err != nil {
		return nil, nil, err
	}
	return sig, sum[:], nil
}
