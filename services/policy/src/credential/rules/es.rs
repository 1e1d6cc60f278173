//! Spanish.

use super::LangRules;
use crate::credential::Category::*;
use crate::credential::matcher::{Scope, Sense};

#[rustfmt::skip]
pub(super) const RULES: LangRules = LangRules {
    code: "es",
    terms: &[
        (Password, &[
            "contraseña", "contraseñas", "clave", "clave de acceso", "credenciales", "clave personal",
            "clave de usuario", "clave bancaria",
        ]),
        (Passphrase, &["frase de contraseña", "frase de paso", "frase secreta"]),
        (ApiKey, &[
            "clave de api", "clave de la api", "clave api", "llave de api", "llave api", "clave secreta",
            "llave secreta", "clave de desarrollador",
        ]),
        (AccessToken, &[
            "token de acceso", "token de autenticación", "token de autorización", "token personal",
            "token de portador", "token de sesión",
        ]),
        (ClientSecret, &["secreto del cliente", "secreto de cliente", "secreto de la aplicación"]),
        (PrivateKey, &["clave privada", "llave privada"]),
        (RecoveryPhrase, &[
            "frase de recuperación", "frase semilla", "palabras de recuperación", "frase mnemotécnica",
            "frase de respaldo", "semilla de la billetera", "semilla de tu billetera",
        ]),
        (SessionCookie, &["cookie de sesión", "cookies de sesión"]),
        (OneTimeCode, &[
            "código de verificación", "código de un solo uso", "código otp", "código de autenticación",
            "código 2fa", "código de doble factor", "contraseña de un solo uso", "clave de un solo uso",
            "clave dinámica", "código sms", "código por sms", "código enviado", "código que te enviamos",
            "código que le enviamos", "código que enviamos", "código de inicio de sesión",
            "código de validación", "código de acceso temporal", "código de seis dígitos",
            "código de 6 dígitos",
        ]),
        (Pin, &["número pin", "código pin", "clave pin", "nip", "clave del cajero", "pin de la tarjeta"]),
        (CardNumber, &[
            "número de tarjeta", "número de la tarjeta", "tarjeta de crédito", "tarjeta de débito",
            "datos de la tarjeta", "datos de tu tarjeta", "datos de su tarjeta", "tarjeta bancaria",
        ]),
        (CardExpiry, &[
            "vencimiento de la tarjeta", "caducidad de la tarjeta", "fecha de caducidad de la tarjeta",
            "fecha de vencimiento de la tarjeta",
        ]),
        (CardSecurityCode, &[
            "código cvv", "código de seguridad de la tarjeta", "código de verificación de la tarjeta",
            "dígitos del reverso", "código del reverso",
        ]),
        (ApiKey, &["archivo env", "fichero env", "contenido del archivo env", "contenido de tu archivo env", "clave restringida"]),
        (AccessToken, &["token de despliegue", "token de publicación", "token de implementación"]),
    ],
    conditional: &[
        (OneTimeCode, Sense::NeedsOtp, &["código", "código de confirmación", "código de acceso"]),
        (CardSecurityCode, Sense::CardOrOtp, &["código de seguridad"]),
        (CardExpiry, Sense::NeedsCard, &[
            "fecha de vencimiento", "fecha de caducidad", "fecha de expiración", "vencimiento", "caducidad",
            "válida hasta", "expiración",
        ]),
    ],
    blockers: &[
        "palabra clave", "palabras clave", "clave pública", "punto clave", "puntos clave", "clave primaria",
        "clave foránea", "idea clave", "factor clave", "momento clave", "pieza clave", "papel clave",
        "clave de sol", "en clave", "tema clave", "elemento clave", "persona clave", "dato clave",
        "aspecto clave", "clave del éxito", "clave valor", "clave y valor", "par clave", "pregunta clave",
        "figura clave", "claves del", "código postal", "código de descuento", "código promocional",
        "código de promoción", "código de cupón", "cupón", "código fuente", "código de país",
        "código de área", "código qr", "código de barras", "código de referencia", "código de seguimiento",
        "código de reserva", "código de invitación", "código de producto", "código de error",
        "código de estado", "código de regalo", "código de referido", "código de vestimenta",
        "código de conducta", "código de colores", "código de la tienda", "tarjeta regalo",
        "tarjeta de regalo", "tarjeta de trello", "tarjeta de fidelidad", "tarjeta sim",
        "tarjeta de identidad", "tarjeta de memoria", "tarjeta gráfica", "tarjeta de visita",
        "tarjeta de embarque", "tarjeta de felicitación", "tarjeta del tablero", "tarjeta sanitaria",
        "tarjeta de transporte", "tarjeta de socio", "tarjeta de puntos", "juego de cartas", "pin en el mapa",
        "fija el", "fijar la", "semilla aleatoria", "token de agradecimiento",
    ],
    not_requests: &[
        "te enviaremos", "le enviaremos", "te enviamos", "le enviamos", "enviaremos", "hemos enviado",
        "te hemos enviado", "reenviar",
    ],
    meta_before: &[
        "longitud de la", "longitud mínima de la", "longitud de", "longitud mínima", "política de",
        "políticas de", "gestor de", "administrador de", "requisitos de la", "requisitos de",
        "restablecer la", "restablecer tu", "restablecer su", "restablecimiento de", "cambiar tu",
        "cambiar su", "cambiar la", "cambio de", "olvidaste tu", "olvidó su", "olvidé mi", "recuperar tu",
        "recuperar su", "recuperación de", "mínimo de", "máximo de", "límite de", "rotar la", "rotar tu",
        "revocar la", "revocar", "regenerar", "eliminar la", "eliminar", "nombre de la", "nombre del",
        "etiqueta de la", "etiqueta del", "descripción de", "qué tipo de", "tipo de", "caducidad de la",
        "seguridad de la", "fortaleza de la", "guardar la", "guardar tu", "recordar", "mostrar", "ocultar",
        "favorito", "favorita", "generador de",
    ],
    statements: &["es", "son", "será", "serán", "debe", "deben", "está", "están", "se guarda", "se guardan"],
    meta_after: &[
        "olvidada", "expirada", "caducada", "filtrada", "comprometida", "guardada", "débil", "segura de",
        "actual caducó",
    ],
    cues: &[
        "ingrese", "ingresa", "introduzca", "introduce", "escriba", "escribe", "proporcione", "proporciona",
        "indique", "indica", "facilite", "facilita", "pegue", "pega", "envíe", "envía", "envíenos",
        "envíanos", "comparta", "comparte", "dame", "danos", "me das", "me da", "me puedes dar",
        "me puede dar", "nos das", "nos da", "díganos", "dinos", "cuál es tu", "cuál es su", "necesitamos tu",
        "necesitamos su", "necesito tu", "digite", "teclee", "introducir", "ingresar", "escribir", "indicar",
        "proporcionar", "rellene", "rellena", "completa", "complete", "por favor ingrese", "ingresando",
        "introduciendo", "cuál es el", "cuál es la",
    ],
    near_cues: &[
        "confirme", "confirma", "confirmar", "verifique", "verifica", "elija", "elige", "establece",
        "establezca", "crea", "cree", "requerida", "requerido", "obligatorio", "obligatoria", "se requiere",
    ],
    negations: &["no", "nunca", "jamás", "sin", "ni", "ningún", "ninguna", "nadie"],
    negation_scope: Scope::Forward,
    cues_follow_terms: false,
    card: &["tarjeta", "titular de la tarjeta", "nombre en la tarjeta"],
    otp: &[
        "enviado", "enviamos", "te enviamos", "sms", "mensaje de texto", "dígitos", "autenticador",
        "verificación", "verificar", "iniciar sesión",
    ],
    address: &["dirección", "envío", "entrega", "ciudad", "domicilio", "calle", "localidad"],
    map: &["mapa", "ubicación", "coordenadas"],
    carriers: &["cadena de conexión", "url de conexión", "uri de conexión", "url de la base de datos", "url de base de datos", "archivo de configuración"],
    own: &["actual", "existente", "mi"],
    own_cues: &["alguna de estas", "alguno de estos", "es tu", "es esta tu", "de la lista", "empieza por", "empieza con", "termina en", "termina con", "palabra #", "palabra n #", "#a palabra", "#ª palabra", "#o palabra", "primera letra", "primer dígito", "último dígito", "últimos dígitos", "últimos # dígitos"],
    ..LangRules::EMPTY
};
