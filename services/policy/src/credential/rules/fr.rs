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
            "code d'accès personnel", "nom de jeune fille de votre mère", "nom de jeune fille de ta mère",
            "réponse secrète", "réponse à la question secrète", "réponse à votre question secrète",
            "réponse de sécurité", "premier animal de compagnie", "premier animal", "votre premier animal",
            "première école", "meilleur ami d enfance", "nom de votre premier animal",
            "nom de ton premier animal", "clé wi fi", "clé wifi", "clé du wi fi", "clé du wifi",
            "clé de sécurité du réseau",
        ]),
        (Passphrase, &["phrase secrète", "phrase de passe", "phrase mot de passe"]),
        (ApiKey, &[
            "clé api", "clé d'api", "clé de l'api", "clé secrète", "clé d'accès", "clef api",
            "clé de développeur", "clé d'application", "fichier env", "contenu du fichier env",
            "contenu de votre fichier env", "clé restreinte",
        ]),
        (AccessToken, &[
            "jeton", "jeton d'accès", "jeton d'authentification", "jeton personnel", "token d'accès",
            "jeton de session", "jeton porteur", "jeton de déploiement", "jeton de publication",
            "jeton d'automatisation",
        ]),
        (ClientSecret, &[
            "secret client", "secret du client", "secret de l'application", "secret d'application",
            "secret partagé", "secret de signature", "secret du webhook", "secret de l api",
            "secret de signature du webhook",
        ]),
        (PrivateKey, &["clé privée", "clef privée", "clés privées"]),
        (RecoveryPhrase, &[
            "phrase de récupération", "phrase de récupération secrète", "phrase mnémonique",
            "mots de récupération", "phrase de sauvegarde", "phrase de restauration", "graine du portefeuille",
            "clé de récupération", "clé de récupération bitlocker",
        ]),
        (SessionCookie, &["cookie de session", "cookies de session"]),
        (OneTimeCode, &[
            "code de vérification", "code à usage unique", "mot de passe à usage unique",
            "code d'authentification", "code reçu par sms", "code reçu", "code envoyé", "code 2fa", "code otp",
            "code de connexion", "code sms", "code à 6 chiffres", "code à six chiffres",
            "code que nous vous avons envoyé", "code de validation", "code temporaire", "codes de secours",
            "code de secours", "codes de récupération", "code de récupération", "codes de sauvegarde",
        ]),
        (Pin, &["code pin", "code confidentiel", "code secret", "numéro pin", "code de la carte"]),
        (CardNumber, &[
            "numéro de carte", "numéro de la carte", "carte bancaire", "carte de crédit", "carte de débit",
            "coordonnées de carte", "informations de carte", "informations de votre carte",
            "numéro de votre carte",
        ]),
        (CardExpiry, &["date d'expiration de la carte", "expiration de la carte"]),
        (CardSecurityCode, &[
            "cryptogramme", "cryptogramme visuel", "code cvv", "les 3 chiffres au dos", "trois chiffres au dos",
            "chiffres au dos de la carte",
        ]),
        (Pin, &[
            "code de déverrouillage", "code de verrouillage", "schéma de déverrouillage",
        ]),
        (AccessToken, &[
            "en tête authorization", "entête authorization", "en tête d autorisation", "header authorization",
        ]),
        (CardNumber, &["16 chiffres de votre carte", "les 16 chiffres", "16 chiffres de la carte"]),
    ],
    conditional: &[
        (OneTimeCode, Sense::NeedsOtp, &["code de confirmation", "code d'accès"]),
        (CardSecurityCode, Sense::CardOrOtp, &["code de sécurité"]),
        (CardExpiry, Sense::NeedsCard, &[
            "date d'expiration", "date de validité", "expiration", "date d'échéance", "valable jusqu'au",
            "fin de validité",
        ]),
        (Password, Sense::NeedsQuestion, &["réponse", "réponses"]),
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
        "jeton de caddie", "clé usb", "clé de licence", "clé de produit", "clé de voûte",
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
        "récupérer votre", "perdu votre", "quel nom", "quel nom donner au", "quel nom donner à",
        "nom à donner au", "nom à donner à", "identifiant de la", "identifiant du", "id de la", "id du",
    ],
    statements: &["est", "sont", "sera", "seront", "doit", "doivent"],
    meta_after: &[
        "oublié", "perdu", "expiré", "compromis", "enregistré", "oubliée", "perdue", "révoquer", "supprimer",
        "renouveler", "nom", "un nom", "un titre", "doit", "doivent", "devra", "valide", "toujours valide",
        "encore valable", "valable", "encore valide",
    ],
    cues: &[
        "saisissez", "saisir", "saisis", "entrez", "entrer", "indiquez", "indiquer", "fournissez", "fournir",
        "tapez", "taper", "collez", "coller", "renseignez", "renseigner", "communiquez", "communiquer",
        "envoyez", "envoyer", "donnez", "donner", "donnez moi", "partagez", "partager", "quel est votre",
        "quel est ton", "quelle est votre", "veuillez saisir", "nous avons besoin de votre",
        "j ai besoin de votre", "précisez", "transmettez", "tapez votre", "entrez votre", "saisie",
        "quel est le", "quelle est la", "file moi", "envoie moi", "donne moi", "copiez ici", "collez ici",
        "quel est", "quelle est", "il me faut", "il nous faut", "j ai besoin de", "j ai besoin du",
        "nous avons besoin de", "nous avons besoin du", "joignez", "joindre", "joins", "téléversez",
        "téléverser", "importez", "connectez vous avec", "connecte toi avec", "identifiez vous avec",
        "communique moi", "communiquez moi", "transmets moi", "transmettez moi", "indiquez moi", "transférez",
        "transférez moi", "faites suivre", "transfère moi",
    ],
    near_cues: &[
        "confirmez", "confirmer", "vérifiez", "choisissez", "choisir", "définissez", "requis", "obligatoire",
        "sélectionnez", "sélectionner", "sélectionne", "choisis",
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
    carriers: &[
        "chaîne de connexion", "url de connexion", "uri de connexion", "url de la base",
        "url de la base de données", "url de base de données", "fichier de configuration", "commande curl",
        "ligne", "variable", "bloc", "extrait", "section", "fragment", "variables d environnement", "requête",
        "requête http", "appel api",
    ],
    own: &[
        "actuel", "actuelle", "existant", "existante", "mon", "ma", "utilisez", "utilises", "vous utilisez",
        "tu utilises",
    ],
    own_cues: &[
        "parmi ceux ci", "parmi celles ci", "parmi ces", "parmi les suivants", "est ce votre", "est il votre",
        "commence par", "se termine par", "mot n #", "#e mot", "#eme mot", "mot #", "de la liste",
        "est votre", "est ton", "est ta", "première lettre", "premier chiffre", "dernier chiffre",
        "derniers chiffres", "# derniers chiffres", "lequel de ces", "laquelle de ces", "lesquels de ces",
        "est le vôtre", "est la vôtre", "est le tien", "est la tienne", "commence t il par",
        "commence t elle par", "se termine t il par", "se termine t elle par", "mot numéro #", "#ème mot",
        "premier mot", "deuxième mot", "troisième mot", "quatrième mot", "cinquième mot", "sixième mot",
        "septième mot", "huitième mot", "neuvième mot", "dixième mot", "onzième mot", "douzième mot",
        "deux derniers chiffres", "trois derniers chiffres", "deux premiers chiffres", "deuxième caractère",
        "troisième caractère", "premier caractère", "# mots", "caractères de votre", "caractère de votre",
        "lettres de votre", "lettre de votre", "chiffres de votre", "chiffre de votre", "positions",
        "position #",
    ],
    back_cues: &[
        "collez le", "collez la", "collez les", "collez le ici", "collez ici", "envoyez le", "envoyez la",
        "envoyez le moi", "envoyez la moi", "donnez le moi", "donnez la moi", "tapez le", "saisissez le",
        "saisissez la", "copiez le ici", "colle le",
    ],
    please: &["s il vous plaît", "s il te plaît", "svp", "stp"],
    which: &["quel", "quelle", "quels", "quelles"],
    possessive: &["votre", "vos", "ton", "ta", "tes"],
    properties: &[
        "contient il", "contient elle", "contient", "comporte t il", "comporte t elle", "comporte",
        "fait il plus de", "fait elle plus de", "fait plus de", "a t il plus de", "a t elle plus de",
        "a plus de", "est il plus long que", "est plus long que", "inclut il", "inclut", "fait il au moins",
        "fait elle au moins", "fait il", "fait elle", "comporte t il au moins", "le même que", "la même que",
        "identique à", "pareil que", "est il le même que", "votre date de naissance",
        "votre année de naissance", "votre anniversaire", "votre numéro de téléphone",
    ],
    copulas: &["est", "est il", "est elle", "était", "est toujours", "reste", "c est"],
    whether: &["si"],
    security_question: &[
        "question secrète", "questions secrètes", "question de sécurité", "questions de sécurité",
        "nom de jeune fille", "premier animal", "première école", "meilleur ami d enfance",
        "ville de naissance",
    ],
    inline_only: &[
        "avec les en têtes", "avec tous les en têtes", "en têtes compris", "avec les headers",
        "avec tous les headers", "avec les clés", "clés comprises",
    ],
    redactions: &[
        "masqué", "masquée", "masqués", "supprimé", "supprimée", "retiré", "retirée", "caviardé", "caviardée",
        "expurgé", "effacé", "effacée", "occulté", "occultée",
    ],
    ..LangRules::EMPTY
};
