//! Portuguese (Brazil and Portugal). In Brazil a `senha` is also the ticket
//! one draws at a counter (`senha de atendimento`): with a queue in the
//! request, a bare `senha` is not a password.

use super::LangRules;
use crate::credential::Category::*;
use crate::credential::matcher::{Scope, Sense};

#[rustfmt::skip]
pub(super) const RULES: LangRules = LangRules {
    code: "pt",
    terms: &[
        (ApiKey, &["chave da conta de serviço", "json da conta de serviço", "ficheiro json da conta de serviço", "arquivo json da conta de serviço", "credenciais da conta de serviço"]),
        (Passphrase, &["frase passe", "frase-passe", "frase palavra passe"]),
        (Password, &[
            "palavra passe", "palavra chave de acesso", "credenciais", "nome de solteira da sua mãe",
            "nome de solteira de sua mãe", "nome de solteira da tua mãe", "resposta de segurança",
            "resposta secreta", "resposta da pergunta de segurança", "resposta à pergunta de segurança",
            "primeiro animal de estimação", "primeiro animal", "primeira escola", "melhor amigo de infância",
            "nome do seu primeiro animal", "nome do primeiro animal", "nome da sua primeira escola",
            "chave do wi fi", "chave wifi", "chave de segurança da rede", "assinatura eletrônica",
            "senha eletrônica",
        ]),
        (Passphrase, &["frase secreta", "frase senha", "frase de senha", "frase de acesso"]),
        (ApiKey, &[
            "chave de api", "chave da api", "chave api", "chave secreta", "chave de acesso",
            "chave de desenvolvedor", "arquivo env", "ficheiro env", "conteúdo do arquivo env",
            "conteúdo do seu arquivo env", "chave restrita", "chave de acesso de implantação",
        ]),
        (AccessToken, &[
            "token de acesso", "token de autenticação", "token pessoal", "token de sessão",
            "token de autorização", "token de implantação", "token de publicação", "token do bot",
        ]),
        (ClientSecret, &[
            "segredo do cliente", "segredo de cliente", "segredo da aplicação", "segredo do app",
            "segredo de assinatura", "segredo do webhook", "segredo da api", "segredo compartilhado",
        ]),
        (PrivateKey, &["chave privada", "chaves privadas"]),
        (RecoveryPhrase, &[
            "frase de recuperação", "frase semente", "palavras de recuperação", "frase mnemônica",
            "frase de backup", "semente da carteira", "chave de recuperação",
        ]),
        (SessionCookie, &["cookie de sessão", "cookies de sessão"]),
        (OneTimeCode, &[
            "código de verificação", "código de uso único", "código enviado", "código que enviamos",
            "código de autenticação", "código otp", "código 2fa", "código por sms", "código sms",
            "senha de uso único", "senha temporária", "código de login", "código de validação",
            "código de 6 dígitos", "código de seis dígitos", "token de segurança", "códigos de backup",
            "código de backup", "códigos de recuperação", "código de recuperação",
        ]),
        (Pin, &["código pin", "senha do cartão", "pin do cartão", "senha de 4 dígitos", "senha numérica"]),
        (CardNumber, &[
            "número do cartão", "numero do cartão", "cartão de crédito", "cartão de débito", "dados do cartão",
            "dados do seu cartão", "cartão bancário",
        ]),
        (CardExpiry, &["validade do cartão", "vencimento do cartão", "data de validade do cartão"]),
        (CardSecurityCode, &[
            "código de segurança do cartão", "código cvv", "código verificador", "dígitos do verso",
            "código do verso", "três dígitos no verso",
        ]),
        (Pin, &[
            "código de desbloqueio", "senha de desbloqueio", "padrão de desbloqueio",
        ]),
        (AccessToken, &["cabeçalho authorization", "cabeçalho de autorização", "header authorization"]),
        (CardNumber, &[
            "16 números do cartão", "16 dígitos do cartão", "os 16 números", "os 16 dígitos",
            "números do cartão",
        ]),
        (CardSecurityCode, &["3 do verso", "três do verso", "números do verso", "3 números do verso"]),
    ],
    conditional: &[
        (OneTimeCode, Sense::NeedsOtp, &["código de confirmação", "código de acesso"]),
        (CardSecurityCode, Sense::CardOrOtp, &["código de segurança"]),
        (CardExpiry, Sense::NeedsCard, &[
            "data de validade", "validade", "data de expiração", "data de vencimento", "válido até",
        ]),
        (Password, Sense::NeedsQuestion, &["resposta", "respostas"]),
        (Password, Sense::UnlessQueue, &["senha", "senhas"]),
    ],
    blockers: &[
        "código postal", "código de desconto", "código promocional", "código do cupom", "cupom",
        "código de rastreio", "código de rastreamento", "código de barras", "código fonte", "código qr",
        "código do produto", "código de indicação", "código de convite", "código de erro", "código do país",
        "código de área", "código de reserva", "código de vestimenta", "código de conduta", "cartão presente",
        "cartão de presente", "cartão de fidelidade", "cartão sim", "cartão de visita", "cartão de embarque",
        "cartão do sus", "cartão de vacina", "cartão de memória", "cartão do trello", "cartão de identidade",
        "jogo de cartas", "chave pix", "chave de casa", "chave do carro", "palavra chave", "palavras chave",
        "chave primária", "chave pública", "chave de acesso da nf e", "chave de acesso da nfe",
        "chave de acesso da nota", "chave da nota fiscal", "chave nf e", "chave de licença",
        "chave do produto", "senha de atendimento", "senha do atendimento", "senha da fila",
        "senha para atendimento", "painel de senhas", "senha preferencial", "número da senha", "número senha",
        "senha impressa", "senha chamada",
    ],
    not_requests: &["enviaremos", "vamos enviar", "reenviar", "enviamos para você"],
    meta_before: &[
        "gerenciador de", "gestor de", "tamanho da", "tamanho mínimo da", "comprimento da", "política de",
        "políticas de", "requisitos da", "requisitos de", "redefinir sua", "redefinir a", "redefinição de",
        "alterar sua", "alterar a", "alteração de", "trocar sua", "troca de", "esqueceu sua", "esqueceu a",
        "esqueci minha", "esqueci a", "recuperar sua", "recuperação de", "limite de", "revogar", "revogar a",
        "excluir a", "excluir", "nome da", "nome do", "descrição da", "tipo de", "qual tipo de",
        "validade da", "expiração da", "força da", "salvar a", "lembrar", "gerador de", "mostrar", "id da",
        "id do", "identificador da", "identificador do",
    ],
    statements: &["é", "são", "será", "serão", "deve", "devem", "está", "estão"],
    meta_after: &[
        "esquecida", "expirada", "vazada", "comprometida", "salva", "fraca", "revogar", "excluir", "apagar",
        "nome", "um nome", "um título", "deve", "devem", "deverá", "precisa ter", "válida", "válido",
        "ainda vale", "expira", "vence",
    ],
    cues: &[
        "digite", "informe", "insira", "introduza", "forneça", "fornecer", "cole", "colar", "envie", "enviar",
        "compartilhe", "partilhe", "qual é sua", "qual é a sua", "qual é o seu", "qual é seu",
        "precisamos da sua", "precisamos do seu", "preciso da sua", "preencha", "indique", "digitar",
        "informar", "inserir", "passe", "mande", "me passe", "me envie", "qual é o", "qual é a", "me passa",
        "passa", "manda", "me manda", "copie aqui", "cole aqui", "qual é", "preciso", "precisamos", "me diga",
        "diga", "preciso que você me diga", "preciso saber", "anexe", "anexar", "envie o arquivo", "suba",
        "faça upload", "entre com", "faça login com", "acesse com", "repassa", "repasse", "me repassa",
        "encaminhe", "encaminha", "me encaminha", "encaminhar",
        "cola", "cola aqui", "manda", "manda aqui", "passa", "me passa",
    ],
    near_cues: &[
        "confirme", "confirmar", "escolha", "defina", "crie", "obrigatória", "obrigatório", "necessária",
        "selecione", "selecionar", "escolher",
    ],
    negations: &["não", "nunca", "jamais", "sem", "nem", "nenhum", "nenhuma", "ninguém"],
    negation_scope: Scope::Forward,
    cues_follow_terms: false,
    card: &["cartão", "titular do cartão", "nome impresso no cartão"],
    otp: &[
        "enviado", "enviamos", "sms", "dígitos", "autenticador", "verificação", "mensagem de texto", "whatsapp",
        "e mail",
    ],
    address: &["endereço", "entrega", "cidade", "rua", "bairro", "cep"],
    map: &["mapa", "localização"],
    carriers: &[
        "string de conexão", "cadeia de conexão", "url de conexão", "url do banco", "url do banco de dados",
        "arquivo de configuração", "comando curl", "configuração", "linha", "variável", "trecho", "bloco",
        "seção", "variáveis de ambiente", "requisição", "request", "chamada da api", "chamada",
    ],
    own: &["atual", "existente", "minha", "meu", "você usa", "usa", "utiliza", "você utiliza"],
    own_cues: &[
        "é a sua", "é o seu", "uma destas", "um destes", "da lista", "começa com", "termina com", "palavra #",
        "#ª palavra", "#a palavra", "#º palavra", "primeira letra", "primeiro dígito", "último dígito",
        "últimos dígitos", "últimos # dígitos", "qual destes é", "qual destas é", "palavra número #",
        "primeira palavra", "segunda palavra", "terceira palavra", "quarta palavra", "quinta palavra",
        "sexta palavra", "sétima palavra", "oitava palavra", "nona palavra", "décima palavra",
        "décima primeira palavra", "décima segunda palavra", "dois últimos dígitos", "três últimos dígitos",
        "últimos dois dígitos", "últimos três dígitos", "segundo caractere", "terceiro caractere",
        "# palavras", "termina em", "começa por", "acaba em", "caracteres da sua", "caractere da sua",
        "letras da sua", "letra da sua", "dígitos da sua", "posições", "posição #", "caracteres do seu",
        "dígitos do seu",
    ],
    back_cues: &[
        "cole o", "cole a", "cole aqui", "envie o", "envie a", "envie me", "me envie", "mande o", "mande a",
        "digite o", "digite a", "compartilhe o", "compartilhe a",
    ],
    please: &["por favor", "por gentileza"],
    which: &["qual", "quais"],
    not_negations: &[
        "no app", "no aplicativo", "no campo", "no site", "no celular", "no banco", "no seu", "no meu",
        "no nosso", "no telefone", "no email", "no e mail", "no formulário", "no painel", "no sistema",
        "no portal", "no navegador", "no computador", "no momento", "no final", "no início", "no verso",
        "no cartão", "no login", "no cadastro", "no whatsapp", "no sms", "no aplicativo do", "no teclado",
        "no ambiente", "no servidor", "no arquivo", "no github", "no slack",
    ],
    possessive: &["sua", "seu", "suas", "seus", "tua", "teu", "tuas", "teus"],
    properties: &[
        "tem mais de", "tem menos de", "tem pelo menos", "contém", "inclui", "é maior que",
        "é mais longa que", "é igual a", "a mesma que", "o mesmo que", "igual à", "igual ao",
        "sua data de nascimento", "seu aniversário", "seu ano de nascimento", "seu telefone",
        "inclui", "contém", "tem mais de", "começa com", "começa por", "termina em", "é igual a",
    ],
    copulas: &["é", "ainda é", "era", "continua sendo", "continua"],
    whether: &["se"],
    security_question: &[
        "pergunta de segurança", "perguntas de segurança", "pergunta secreta", "perguntas secretas",
        "nome de solteira", "primeiro animal", "primeira escola", "melhor amigo de infância", "cidade natal",
    ],
    inline_only: &[
        "com os cabeçalhos", "com todos os cabeçalhos", "cabeçalhos incluídos", "com as chaves",
        "chaves incluídas", "com os headers",
    ],
    redactions: &[
        "removida", "removido", "ocultada", "ocultado", "mascarada", "mascarado", "apagada", "apagado",
        "tarjada", "tarjado", "omitida", "omitido",
    ],
    queue: &[
        "senha de atendimento", "senha do atendimento", "senha da fila", "senha para atendimento", "totem",
        "guichê", "painel de senhas", "senha chamada", "senha foi chamada", "retire sua senha",
        "retirou sua senha", "retirar a senha", "retirar sua senha", "ficha de atendimento",
        "número da senha", "senha impressa", "senha preferencial", "fila de atendimento", "acompanhar a fila",
        "chamar a senha",
    ],
    ..LangRules::EMPTY
};
