//! Portuguese (Brazil and Portugal).

use super::LangRules;
use crate::credential::Category::*;
use crate::credential::matcher::{Scope, Sense};

#[rustfmt::skip]
pub(super) const RULES: LangRules = LangRules {
    code: "pt",
    terms: &[
        (Password, &["senha", "senhas", "palavra passe", "palavra chave de acesso", "credenciais"]),
        (Passphrase, &["frase secreta", "frase senha", "frase de senha", "frase de acesso"]),
        (ApiKey, &[
            "chave de api", "chave da api", "chave api", "chave secreta", "chave de acesso",
            "chave de desenvolvedor",
        ]),
        (AccessToken, &[
            "token de acesso", "token de autenticação", "token pessoal", "token de sessão",
            "token de autorização",
        ]),
        (ClientSecret, &[
            "segredo do cliente", "segredo de cliente", "segredo da aplicação", "segredo do app",
        ]),
        (PrivateKey, &["chave privada", "chaves privadas"]),
        (RecoveryPhrase, &[
            "frase de recuperação", "frase semente", "palavras de recuperação", "frase mnemônica",
            "frase de backup", "semente da carteira",
        ]),
        (SessionCookie, &["cookie de sessão", "cookies de sessão"]),
        (OneTimeCode, &[
            "código de verificação", "código de uso único", "código enviado", "código que enviamos",
            "código de autenticação", "código otp", "código 2fa", "código por sms", "código sms",
            "senha de uso único", "senha temporária", "código de login", "código de validação",
            "código de 6 dígitos", "código de seis dígitos", "token de segurança",
        ]),
        (Pin, &["código pin", "senha do cartão", "pin do cartão", "senha de 4 dígitos", "senha numérica"]),
        (CardNumber, &[
            "número do cartão", "numero do cartão", "cartão de crédito", "cartão de débito",
            "dados do cartão", "dados do seu cartão", "cartão bancário",
        ]),
        (CardExpiry, &["validade do cartão", "vencimento do cartão", "data de validade do cartão"]),
        (CardSecurityCode, &[
            "código de segurança do cartão", "código cvv", "código verificador", "dígitos do verso",
            "código do verso", "três dígitos no verso",
        ]),
        (ApiKey, &["arquivo env", "ficheiro env", "conteúdo do arquivo env", "conteúdo do seu arquivo env", "chave restrita", "chave de acesso de implantação"]),
        (AccessToken, &["token de implantação", "token de publicação", "token do bot"]),
    ],
    conditional: &[
        (OneTimeCode, Sense::NeedsOtp, &["código de confirmação", "código de acesso"]),
        (CardSecurityCode, Sense::CardOrOtp, &["código de segurança"]),
        (CardExpiry, Sense::NeedsCard, &[
            "data de validade", "validade", "data de expiração", "data de vencimento", "válido até",
        ]),
    ],
    blockers: &[
        "código postal", "código de desconto", "código promocional", "código do cupom", "cupom",
        "código de rastreio", "código de rastreamento", "código de barras", "código fonte", "código qr",
        "código do produto", "código de indicação", "código de convite", "código de erro", "código do país",
        "código de área", "código de reserva", "código de vestimenta", "código de conduta", "cartão presente",
        "cartão de presente", "cartão de fidelidade", "cartão sim", "cartão de visita", "cartão de embarque",
        "cartão do sus", "cartão de vacina", "cartão de memória", "cartão do trello", "cartão de identidade",
        "jogo de cartas", "chave pix", "chave de casa", "chave do carro", "palavra chave", "palavras chave",
        "chave primária", "chave pública",
    ],
    not_requests: &["enviaremos", "vamos enviar", "reenviar", "enviamos para você"],
    meta_before: &[
        "gerenciador de", "gestor de", "tamanho da", "tamanho mínimo da", "comprimento da", "política de",
        "políticas de", "requisitos da", "requisitos de", "redefinir sua", "redefinir a", "redefinição de",
        "alterar sua", "alterar a", "alteração de", "trocar sua", "troca de", "esqueceu sua", "esqueceu a",
        "esqueci minha", "esqueci a", "recuperar sua", "recuperação de", "limite de", "revogar", "revogar a",
        "excluir a", "excluir", "nome da", "nome do", "descrição da", "tipo de", "qual tipo de",
        "validade da", "expiração da", "força da", "salvar a", "lembrar", "gerador de", "mostrar",
    ],
    statements: &["é", "são", "será", "serão", "deve", "devem", "está", "estão"],
    meta_after: &["esquecida", "expirada", "vazada", "comprometida", "salva", "fraca"],
    cues: &[
        "digite", "informe", "insira", "introduza", "forneça", "fornecer", "cole", "colar", "envie", "enviar",
        "compartilhe", "partilhe", "qual é sua", "qual é a sua", "qual é o seu", "qual é seu",
        "precisamos da sua", "precisamos do seu", "preciso da sua", "preencha", "indique", "digitar",
        "informar", "inserir", "passe", "mande", "me passe", "me envie", "qual é o", "qual é a",
    ],
    near_cues: &[
        "confirme", "confirmar", "escolha", "defina", "crie", "obrigatória", "obrigatório", "necessária",
    ],
    negations: &["não", "nunca", "jamais", "sem", "nem", "nenhum", "nenhuma", "ninguém"],
    negation_scope: Scope::Forward,
    cues_follow_terms: false,
    card: &["cartão", "titular do cartão", "nome impresso no cartão"],
    otp: &[
        "enviado", "enviamos", "sms", "dígitos", "autenticador", "verificação", "mensagem de texto",
        "whatsapp", "e mail",
    ],
    address: &["endereço", "entrega", "cidade", "rua", "bairro", "cep"],
    map: &["mapa", "localização"],
    carriers: &["string de conexão", "cadeia de conexão", "url de conexão", "url do banco", "url do banco de dados", "arquivo de configuração"],
    own: &["atual", "existente", "minha", "meu"],
    own_cues: &["é a sua", "é o seu", "uma destas", "um destes", "da lista", "começa com", "termina com", "palavra #", "#ª palavra", "#a palavra", "#º palavra", "primeira letra", "primeiro dígito", "último dígito", "últimos dígitos", "últimos # dígitos"],
    ..LangRules::EMPTY
};
