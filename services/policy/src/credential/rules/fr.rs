//! French.

use super::LangRules;
use crate::credential::Category::*;
use crate::credential::matcher::{Scope, Sense};

#[rustfmt::skip]
pub(super) const RULES: LangRules = LangRules {
    code: "fr",
    terms: &[
        (Password, &[
            "mot de passe", "mots de passe", "mdp", "identifiants", "identifiants de connexion",
            "code d'accès personnel",
        ]),
        (Passphrase, &["phrase secrète", "phrase de passe", "phrase mot de passe"]),
        (ApiKey, &[
            "clé api", "clé d'api", "clé de l'api", "clé secrète", "clé d'accès", "clef api",
            "clé de développeur", "clé d'application",
        ]),
        (AccessToken, &[
            "jeton", "jeton d'accès", "jeton d'authentification", "jeton personnel", "token d'accès",
            "jeton de session", "jeton porteur",
        ]),
        (ClientSecret, &[
            "secret client", "secret du client", "secret de l'application", "secret d'application",
            "secret partagé",
        ]),
        (PrivateKey, &["clé privée", "clef privée", "clés privées"]),
        (RecoveryPhrase, &[
            "phrase de récupération", "phrase de récupération secrète", "phrase mnémonique",
            "mots de récupération", "phrase de sauvegarde", "phrase de restauration",
            "graine du portefeuille",
        ]),
        (SessionCookie, &["cookie de session", "cookies de session"]),
        (OneTimeCode, &[
            "code de vérification", "code à usage unique", "mot de passe à usage unique",
            "code d'authentification", "code reçu par sms", "code reçu", "code envoyé", "code 2fa",
            "code otp", "code de connexion", "code sms", "code à 6 chiffres", "code à six chiffres",
            "code que nous vous avons envoyé", "code de validation", "code temporaire",
        ]),
        (Pin, &["code pin", "code confidentiel", "code secret", "numéro pin", "code de la carte"]),
        (CardNumber, &[
            "numéro de carte", "numéro de la carte", "carte bancaire", "carte de crédit", "carte de débit",
            "coordonnées de carte", "informations de carte", "informations de votre carte",
            "numéro de votre carte",
        ]),
        (CardExpiry, &["date d'expiration de la carte", "expiration de la carte"]),
        (CardSecurityCode, &[
            "cryptogramme", "cryptogramme visuel", "code cvv", "les 3 chiffres au dos",
            "trois chiffres au dos", "chiffres au dos de la carte",
        ]),
        (ApiKey, &["fichier env", "contenu du fichier env", "contenu de votre fichier env", "clé restreinte"]),
        (AccessToken, &["jeton de déploiement", "jeton de publication", "jeton d'automatisation"]),
    ],
    conditional: &[
        (OneTimeCode, Sense::NeedsOtp, &["code de confirmation", "code d'accès"]),
        (CardSecurityCode, Sense::CardOrOtp, &["code de sécurité"]),
        (CardExpiry, Sense::NeedsCard, &[
            "date d'expiration", "date de validité", "expiration", "date d'échéance", "valable jusqu'au",
            "fin de validité",
        ]),
    ],
    blockers: &[
        "code postal", "code promo", "code de réduction", "code de parrainage", "code source", "code pays",
        "code qr", "code barre", "code barres", "code d'erreur", "code de suivi", "code de réservation",
        "code cadeau", "code d'invitation", "code de la route", "code vestimentaire", "code couleur",
        "code produit", "code de conduite", "code civil", "carte cadeau", "carte de fidélité", "carte sim",
        "carte d'identité", "carte graphique", "carte mémoire", "jeu de cartes", "carte trello",
        "carte de visite", "carte d'embarquement", "carte de vœux", "carte vitale", "carte grise",
        "carte du menu", "carte des vins", "carte de membre", "carte étudiante", "carte de transport",
        "carte de la ville", "carte routière", "sur la carte", "jeton de présence", "jetons de présence",
        "jeton de caddie", "clé usb",
    ],
    not_requests: &["nous vous enverrons", "vous recevrez", "renvoyer"],
    meta_before: &[
        "gestionnaire de", "longueur du", "longueur minimale du", "longueur de", "politique de",
        "politique des", "nombre de", "limite de", "réinitialiser votre", "réinitialiser le",
        "réinitialisation du", "réinitialisation de", "oublié votre", "changer votre", "changer le",
        "changement de", "modifier votre", "modifier le", "exigences du", "règles du", "renouveler",
        "révoquer", "révoquer la", "régénérer", "supprimer", "supprimer la", "nom de la", "nom du",
        "libellé de la", "description de", "quel type de", "type de", "sécurité du", "robustesse du",
        "expiration du", "enregistrer le", "mémoriser", "afficher le", "masquer le", "générateur de",
        "récupérer votre", "perdu votre",
    ],
    statements: &["est", "sont", "sera", "seront", "doit", "doivent"],
    meta_after: &["oublié", "perdu", "expiré", "compromis", "enregistré", "oubliée", "perdue"],
    cues: &[
        "saisissez", "saisir", "saisis", "entrez", "entrer", "indiquez", "indiquer", "fournissez", "fournir",
        "tapez", "taper", "collez", "coller", "renseignez", "renseigner", "communiquez", "communiquer",
        "envoyez", "envoyer", "donnez", "donner", "donnez moi", "partagez", "partager", "quel est votre",
        "quel est ton", "quelle est votre", "veuillez saisir", "nous avons besoin de votre",
        "j ai besoin de votre", "précisez", "transmettez", "tapez votre", "entrez votre", "saisie",
        "quel est le", "quelle est la",
    ],
    near_cues: &[
        "confirmez", "confirmer", "vérifiez", "choisissez", "choisir", "définissez", "requis", "obligatoire",
    ],
    negations: &["ne", "jamais", "sans", "aucun", "aucune", "ni"],
    negation_scope: Scope::Forward,
    cues_follow_terms: false,
    card: &["carte", "titulaire de la carte", "titulaire"],
    otp: &[
        "envoyé", "reçu", "sms", "chiffres", "authentification", "vérification", "authentificateur", "texto",
    ],
    address: &["adresse", "livraison", "ville", "rue", "commune"],
    map: &["localisation", "emplacement"],
    carriers: &["chaîne de connexion", "url de connexion", "uri de connexion", "url de la base", "url de la base de données", "url de base de données", "fichier de configuration"],
    own: &["actuel", "actuelle", "existant", "existante", "mon", "ma"],
    own_cues: &["parmi ceux ci", "parmi celles ci", "parmi ces", "parmi les suivants", "est ce votre", "est il votre", "commence par", "se termine par", "mot n #", "#e mot", "#eme mot", "mot #", "de la liste", "est votre", "est ton", "est ta", "première lettre", "premier chiffre", "dernier chiffre", "derniers chiffres", "# derniers chiffres"],
    ..LangRules::EMPTY
};
